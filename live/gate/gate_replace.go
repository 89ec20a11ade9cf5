package gate

import (
	"context"
	"fmt"

	"cockpit/live"
)

// Replace runs a replace of the resting order old (read from the broker) through the gate.
// A replace that raises the order's size or a price (live.ReplaceRaises) is checked as a new
// order, with old's resting exposure swapped out of the book; one that only lowers passes the
// gate's normal steps (mandate, expiry, halt, state, controls, lock, journal, audit) without
// the mandate's limits, which the old order already passed. An unusable replace is refused as
// an order of unknown shape. s carries the broker, actor and, for a tool-shaped broker, the
// tool call; its Intent and Order are set here. Every outcome is audited once, as Submit's.
func (g *Gate) Replace(ctx context.Context, s Submission, old live.Order, rep live.Replace, t live.InstrumentType) Decision {
	raises, err := live.ReplaceRaises(old, rep)
	in, req := live.ReplaceOrder(old, rep, t)
	if err != nil {
		in.Invalid = fmt.Errorf("%w: %v", live.ErrShape, err)
	}
	req.Tool, req.Args = s.Tool, s.Args
	s.Intent, s.Order, s.Profile = &in, req, nil
	s.lowers = err == nil && !raises
	return g.Submit(ctx, s)
}
