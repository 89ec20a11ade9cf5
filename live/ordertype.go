package live

import (
	"errors"
	"fmt"

	"cockpit/live/money"
)

// OrderTypes lists the order types the gate values, in the order tools document them.
var OrderTypes = []OrderType{Market, Limit, Stop, StopLimit, TrailingStop}

// Valid reports whether t is one of OrderTypes (exactly).
func (t OrderType) Valid() bool {
	for _, v := range OrderTypes {
		if t == v {
			return true
		}
	}
	return false
}

// Triggered reports whether t waits for a trigger price (a stop, stop-limit or trailing stop).
func (t OrderType) Triggered() bool { return t == Stop || t == StopLimit || t == TrailingStop }

// OrderPrices are an order's price fields as a tool gave them.
type OrderPrices struct {
	Limit, Stop, TrailAmount, TrailPercent *money.Amount
}

// ErrOrderPrices marks prices that do not fit their order type.
var ErrOrderPrices = errors.New("order prices do not fit the order type")

// CheckOrderPrices checks that t's price fields are the ones it needs, each positive: a limit
// order has limit_price; a stop has stop_price and no limit; a stop-limit has both; a trailing
// stop has exactly one of trail_amount and trail_percent (below 100) and neither limit nor stop
// price; a market order has none. The error names the field.
func CheckOrderPrices(t OrderType, p OrderPrices) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrOrderPrices, fmt.Sprintf(format, a...))
	}
	for _, f := range []struct {
		name string
		v    *money.Amount
	}{{"limit_price", p.Limit}, {"stop_price", p.Stop}, {"trail_amount", p.TrailAmount}, {"trail_percent", p.TrailPercent}} {
		if f.v != nil && (f.v.Sign() <= 0 || f.v.IsInf()) {
			return bad("%s %s must be a positive number", f.name, f.v)
		}
	}
	has := func(a *money.Amount) bool { return a != nil }
	switch t {
	case Market:
		if has(p.Limit) || has(p.Stop) || has(p.TrailAmount) || has(p.TrailPercent) {
			return bad("a market order takes no limit_price, stop_price or trail")
		}
	case Limit:
		if !has(p.Limit) {
			return bad("a limit order needs limit_price")
		}
		if has(p.Stop) || has(p.TrailAmount) || has(p.TrailPercent) {
			return bad("a limit order takes no stop_price or trail (use type stop_limit)")
		}
	case Stop:
		if !has(p.Stop) {
			return bad("a stop order needs stop_price")
		}
		if has(p.Limit) || has(p.TrailAmount) || has(p.TrailPercent) {
			return bad("a stop order takes no limit_price or trail (use type stop_limit or trailing_stop)")
		}
	case StopLimit:
		if !has(p.Stop) || !has(p.Limit) {
			return bad("a stop_limit order needs stop_price and limit_price")
		}
		if has(p.TrailAmount) || has(p.TrailPercent) {
			return bad("a stop_limit order takes no trail")
		}
	case TrailingStop:
		if has(p.TrailAmount) == has(p.TrailPercent) {
			return bad("a trailing_stop order needs exactly one of trail_amount and trail_percent")
		}
		if has(p.TrailPercent) && !p.TrailPercent.LessThan(money.FromInt(100)) {
			return bad("trail_percent %s must be below 100", p.TrailPercent)
		}
		if has(p.Limit) || has(p.Stop) {
			return bad("a trailing_stop order takes no limit_price or stop_price")
		}
	default:
		return bad("type %q is not one of market, limit, stop, stop_limit, trailing_stop", string(t))
	}
	return nil
}

// TriggerPrice is where a triggered order would trigger, judged at the current price cur: the
// stop price; for a trailing stop, cur plus the trail for a buy and minus it for a sell (a
// trail in percent is taken of cur). ok is false for an order that has no trigger.
func TriggerPrice(t OrderType, side string, p OrderPrices, cur money.Amount) (money.Amount, bool) {
	switch t {
	case Stop, StopLimit:
		if p.Stop != nil {
			return *p.Stop, true
		}
	case TrailingStop:
		trail := money.Zero
		switch {
		case p.TrailAmount != nil:
			trail = *p.TrailAmount
		case p.TrailPercent != nil:
			trail = cur.Mul(*p.TrailPercent).Div(money.FromInt(100))
		default:
			return money.Zero, false
		}
		if side == Buy {
			return cur.Add(trail), true
		}
		return money.Max(cur.Sub(trail), money.Zero), true
	}
	return money.Zero, false
}

// Prices are the intent's price fields.
func (i OrderIntent) Prices() OrderPrices {
	return OrderPrices{Limit: i.LimitPrice, Stop: i.StopPrice, TrailAmount: i.TrailAmount, TrailPercent: i.TrailPercent}
}

// Prices are the order's price fields (a trailing stop's current stop, when the broker says, is
// its StopPrice).
func (o Order) Prices() OrderPrices {
	return OrderPrices{Limit: o.LimitPrice, Stop: o.StopPrice, TrailAmount: o.TrailAmount, TrailPercent: o.TrailPercent}
}

// Prices are the request's price fields.
func (r OrderRequest) Prices() OrderPrices {
	return OrderPrices{Limit: r.LimitPrice, Stop: r.StopPrice, TrailAmount: r.TrailAmount, TrailPercent: r.TrailPercent}
}

// WorstCasePrice is the price the gate values an order at, from the current valuation price
// cur: never below cur; a buy's limit raises it (as before); a triggered order's trigger
// raises it (a buy stop above the market is valued at its stop, a buy trailing stop at cur
// plus the trail; a sell stop's trigger is below cur, so cur stands).
func WorstCasePrice(t OrderType, side string, p OrderPrices, cur money.Amount) money.Amount {
	px := cur
	if p.Limit != nil && side == Buy {
		px = money.Max(px, *p.Limit)
	}
	if trig, ok := TriggerPrice(t, side, p, cur); ok {
		px = money.Max(px, trig)
	}
	return px
}
