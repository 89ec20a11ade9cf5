package gate

import (
	"cockpit/live"
	"cockpit/live/money"
	"cockpit/live/pystr"
)

// orderType is the run's order type: the intent's when it names one, else the request's.
func (r *run) orderType() live.OrderType {
	if r.intent.Type != "" {
		return r.intent.Type
	}
	return r.req.Type
}

// prices are the run's order prices: the intent's, else the request's.
func (r *run) prices() live.OrderPrices {
	p := r.intent.Prices()
	q := r.req.Prices()
	if p.Stop == nil && p.TrailAmount == nil && p.TrailPercent == nil {
		p.Stop, p.TrailAmount, p.TrailPercent = q.Stop, q.TrailAmount, q.TrailPercent
	}
	return p
}

// atTrigger raises a valuation price p to the order's worst-case trigger: a stop order is
// valued at its stop price, a trailing stop at p plus (buys) or minus (sells) the trail, and
// never below p (a sell stop below the market is valued at p).
func (r *run) atTrigger(p money.Amount) money.Amount {
	t := r.orderType()
	if !t.Triggered() {
		return p
	}
	if trig, ok := live.TriggerPrice(t, r.intent.Side, r.prices(), p); ok && trig.GreaterThan(p) {
		r.val.triggered = true // the audit names the trigger as the notional's basis
		return trig
	}
	return p
}

// protective values a triggered order that only closes part of a held position, by quantity,
// at the position's own mark: whatever price it triggers at, it closes shares worth what the
// position is worth then, so it is reducing (DV3) and passes REDUCE_ONLY, whatever its trigger.
// Any other order keeps its worst-case trigger valuation. Options and multi-leg orders (whose
// quantity and mark are in different units) are left as valued.
func (r *run) protective() {
	in := &r.intent
	if !r.orderType().Triggered() || in.Quantity == nil || len(in.Legs) > 0 || r.positions == nil {
		return
	}
	sym := in.NormalizedSymbol()
	if live.SymbolMultiplier(sym).Cmp(money.FromInt(1)) != 0 || in.InstrumentType == live.Option {
		return
	}
	held, value := money.Zero, money.Zero
	for _, p := range r.positions {
		if pystr.Upper(pystr.Strip(p.Symbol)) == sym {
			held, value = held.Add(p.Qty), value.Add(p.MarketValue)
		}
	}
	signed := *in.Quantity
	if in.Side == live.Sell {
		signed = signed.Neg()
	}
	if !live.ReducesOnly(held, signed) || value.Sign() == 0 || value.Sign() != held.Sign() {
		return
	}
	r.check("protective_stop")
	n := in.Quantity.Mul(value.Div(held))
	r.val.basis = basisPosition
	if r.explicit != nil && r.explicit.GreaterThan(n) {
		n, r.val.basis = *r.explicit, basisExplicit
	}
	in.NotionalUSD = &n
}
