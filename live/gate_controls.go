package live

import (
	"context"
	"fmt"
	"time"

	"cockpit/live/money"
)

// controls runs the cockpit controls that need no lock: the quantity cap and the price collar.
func (r *run) controls(ctx context.Context) *Denial {
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
			return NewDenial(ReasonQuantityCap, "quantity", qty.String(), "max_quantity", c.MaxOrderQuantity.String())
		}
	}
	if c.PriceCollarBps != nil {
		r.check("price_collar")
		q, ok := r.freshQuote(ctx)
		ref := q.Ask
		if in.Side == Sell {
			ref = q.Bid
		}
		if ref.Sign() <= 0 {
			ref = q.Last
		}
		if !ok || ref.Sign() <= 0 {
			return NewDenial(ReasonNoQuote, "symbol", in.NormalizedSymbol(), "error", "the price collar needs a fresh quote")
		}
		if r.req.Type == Limit && r.req.LimitPrice != nil {
			band := ref.Mul(*c.PriceCollarBps).Div(money.FromInt(10000))
			if r.req.LimitPrice.Sub(ref).Abs().GreaterThan(band) {
				return NewDenial(ReasonPriceCollar, "limit_price", r.req.LimitPrice.String(), "reference", ref.String(), "collar_bps", c.PriceCollarBps.String())
			}
		}
	}
	return nil
}

// throttle applies the duplicate window and the order-rate limit under the lock.
func (g *Gate) throttle(key string, c Controls, req OrderRequest, in OrderIntent, now time.Time) *Denial {
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
				return NewDenial(ReasonDuplicate, "symbol", sig.symbol, "side", sig.side, "previous", f.clientOrderID)
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
			return NewDenial(ReasonRateLimited, "orders_last_minute", fmt.Sprint(n), "max_per_minute", fmt.Sprint(*c.MaxOrdersPerMinute))
		}
	}
	return nil
}

func signature(req OrderRequest, in OrderIntent, id string) forwarded {
	str := func(a *money.Amount) string {
		if a == nil {
			return ""
		}
		return a.String()
	}
	return forwarded{symbol: in.NormalizedSymbol(), side: in.Side, qty: str(req.Quantity), notional: str(req.Notional),
		px: str(req.LimitPrice), clientOrderID: id}
}

// remember records a forward for the throttle and drops entries older than the longest window.
func (g *Gate) remember(key string, req OrderRequest, in OrderIntent, id string, at time.Time) {
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
