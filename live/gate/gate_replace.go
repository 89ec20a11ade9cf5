package gate

import (
	"context"
	"fmt"

	"cockpit/live"
)

// Replace runs a replace of a resting order through the gate. The order replaced is read
// from the broker's open orders (never taken from the caller), so a replace is judged
// against what actually rests. One that raises the order's size or a price
// (live.ReplaceRaises) is checked as a new order, with the old order's resting exposure
// swapped out of the book; one that only lowers passes the gate's normal steps (mandate,
// expiry, halt, state, controls, lock, journal, audit) without the mandate's limits, which
// the old order already passed. An unusable replace (no such open order, nothing to change,
// open orders unreadable) is refused as an order of unknown shape. s carries the broker,
// actor and, for a tool-shaped broker, the tool call; its Intent and Order are set here.
// Every outcome is audited once, as Submit's.
func (g *Gate) Replace(ctx context.Context, s Submission, rep live.Replace, t live.InstrumentType) Decision {
	old, err := openOrder(ctx, s.Broker, rep.OrderID)
	raises := false
	if err == nil {
		raises, err = live.ReplaceRaises(old, rep)
	}
	in, req := live.ReplaceOrder(old, rep, t)
	if err != nil {
		in.Invalid = fmt.Errorf("%w: %v", live.ErrShape, err)
	}
	req.Tool, req.Args = s.Tool, s.Args
	s.Intent, s.Order, s.Profile = &in, req, nil
	s.lowers = err == nil && !raises
	return g.Submit(ctx, s)
}

// openOrder finds the open order id on the broker.
func openOrder(ctx context.Context, b live.Broker, id string) (live.Order, error) {
	if b == nil || id == "" {
		return live.Order{}, fmt.Errorf("replace: order id is missing")
	}
	orders, err := b.OpenOrders(ctx)
	if err != nil {
		return live.Order{}, fmt.Errorf("replace: open orders unreadable: %v", err)
	}
	for _, o := range orders {
		if o.ID == id {
			return o, nil
		}
	}
	return live.Order{}, fmt.Errorf("replace: order %s is not open", id)
}
