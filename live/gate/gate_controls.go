package gate

import (
	"context"
	"fmt"
	"time"

	"cockpit/live"
	"cockpit/live/money"
)

// controls runs the cockpit controls that need no lock: the quantity cap and the price collar.
func (r *run) controls(ctx context.Context) *live.Denial {
	c := r.m.Controls
	in := r.intent
	if c.MaxOrderQuantity != nil {
		r.check("max_order_quantity")
		qty := in.Quantity
		if qty == nil && in.NotionalUSD != nil {
			p, den := r.price(ctx)
			if den != nil {
				return den
			}
			q := in.NotionalUSD.Div(p)
			qty = &q
		}
		if qty != nil && qty.GreaterThan(*c.MaxOrderQuantity) {
			return live.NewDenial(live.ReasonQuantityCap, "quantity", qty.String(), "max_quantity", c.MaxOrderQuantity.String())
		}
	}
	if c.PriceCollarBps != nil {
		r.check("price_collar")
		q, ok := r.freshQuote(ctx)
		ref := q.Ask
		if in.Side == live.Sell {
			ref = q.Bid
		}
		if ref.Sign() <= 0 {
			ref = q.Last
		}
		if !ok || ref.Sign() <= 0 {
			return live.NewDenial(live.ReasonNoQuote, "symbol", in.NormalizedSymbol(), "error", "the price collar needs a fresh quote")
		}
		if r.req.Type == live.Limit && r.req.LimitPrice != nil {
			band := ref.Mul(*c.PriceCollarBps).Div(money.FromInt(10000))
			if r.req.LimitPrice.Sub(ref).Abs().GreaterThan(band) {
				return live.NewDenial(live.ReasonPriceCollar, "limit_price", r.req.LimitPrice.String(), "reference", ref.String(), "collar_bps", c.PriceCollarBps.String())
			}
		}
	}
	return nil
}

// throttle applies the duplicate window and the order-rate limit under the lock.
func (g *Gate) throttle(key string, c live.Controls, req live.OrderRequest, in live.OrderIntent, now time.Time) *live.Denial {
	if c.DuplicateWindowMs == nil && c.MaxOrdersPerMinute == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	recent := g.recent[key]
	sig := signature(req, in, "")
	if c.DuplicateWindowMs != nil {
		window := time.Duration(*c.DuplicateWindowMs) * time.Millisecond
		for _, f := range recent {
			if now.Sub(f.at) <= window && f.symbol == sig.symbol && f.side == sig.side && f.qty == sig.qty && f.notional == sig.notional && f.px == sig.px {
				return live.NewDenial(live.ReasonDuplicate, "symbol", sig.symbol, "side", sig.side, "previous", f.clientOrderID)
			}
		}
	}
	if c.MaxOrdersPerMinute != nil {
		n := int64(0)
		for _, f := range recent {
			if now.Sub(f.at) < time.Minute {
				n++
			}
		}
		if n >= *c.MaxOrdersPerMinute {
			return live.NewDenial(live.ReasonRateLimited, "orders_last_minute", fmt.Sprint(n), "max_per_minute", fmt.Sprint(*c.MaxOrdersPerMinute))
		}
	}
	return nil
}

func signature(req live.OrderRequest, in live.OrderIntent, id string) forwarded {
	str := func(a *money.Amount) string {
		if a == nil {
			return ""
		}
		return a.String()
	}
	px := str(req.LimitPrice)
	if req.Type.Triggered() { // two stops at different triggers are different orders
		px += "|" + string(req.Type) + "|" + str(req.StopPrice) + "|" + str(req.TrailAmount) + "|" + str(req.TrailPercent)
	}
	return forwarded{symbol: in.NormalizedSymbol(), side: in.Side, qty: str(req.Quantity), notional: str(req.Notional),
		px: px, clientOrderID: id}
}

// remember records a forward for the throttle and drops entries older than the longest window.
func (g *Gate) remember(key string, req live.OrderRequest, in live.OrderIntent, id string, at time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.recent == nil {
		g.recent = map[string][]forwarded{}
	}
	f := signature(req, in, id)
	f.at = at
	kept := g.recent[key][:0]
	for _, old := range g.recent[key] {
		if at.Sub(old.at) < 10*time.Minute {
			kept = append(kept, old)
		}
	}
	g.recent[key] = append(kept, f)
}
