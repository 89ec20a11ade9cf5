package main

import (
	"fmt"

	"cockpit/live"
	"cockpit/live/jsonv"
)

// lossLines are the status lines of a broker's loss limits ("" when none is set).
func lossLines(b *jsonv.Object) []string {
	lo := obj(b, "loss_limits")
	if lo == nil {
		return nil
	}
	var out []string
	if e, ok := lo.Get("error"); ok {
		out = append(out, fmt.Sprintf("Loss:      ERROR %v (orders that add exposure are denied)", e))
	}
	start, _ := lo.Get("day_start_equity")
	peak, _ := lo.Get("day_peak_equity")
	day, _ := lo.Get("day")
	limits, _ := lo.Get("limits")
	list, _ := limits.([]any)
	for _, raw := range list {
		g, _ := raw.(*jsonv.Object)
		name, _ := g.Get("limit")
		value, _ := g.Get("limit_value")
		below, _ := g.Get("halt_below_equity")
		base, what := start, "day start"
		if name == live.LimitDrawdown {
			base, what = peak, "day peak"
		}
		switch {
		case below == nil:
			out = append(out, fmt.Sprintf("Loss:      %v %v — no equity read yet on %v (the first read sets the day's start)", name, value, day))
		default:
			out = append(out, fmt.Sprintf("Loss:      %v %v — %s equity %v on %v: HALTs below %v", name, value, what, base, day, below))
		}
	}
	if v, _ := lo.Get("halted_by_loss_limit"); v == true {
		out = append(out, "Loss:      HALTED by a loss limit: resume (after raising the limit, or on the next UTC day) to trade again")
	}
	return out
}
