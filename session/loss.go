package session

import (
	"context"
	"time"

	"cockpit/engine"
	"cockpit/live/gate"
)

// LossWatchEvery is how often the session reads the account for the loss limits between
// orders (a fill reads it at once): a limit crossed while the agent places nothing still halts.
const LossWatchEvery = 2 * time.Second

// lossOptions lets the gate's loss limits halt the session: the gate's own HALT write is not
// audited again as one from outside, and a crossing pauses the agent and is published
// (engine.EvLossLimit, which [notify] turns into its loss_limit message).
func (s *Session) lossOptions(o *GateOptions) {
	o.ExpectSentinel = func(path string) { s.sentries.expect(path, true) }
	o.OnLossLimit = func(h gate.LossHalt) {
		s.rt.Log.Warn("loss limit crossed", "broker", h.Broker, "limit", h.Gauge.Limit, "detail", h.Gauge.Describe(h.Limits), "tripped", h.Tripped)
		if s.eng != nil { // set before anything can place an order; a crossing is audited anyway
			s.eng.LossHalted(h)
		}
	}
}

// watchLoss reads the equity for the loss limits every LossWatchEvery and after each fill,
// until ctx ends (WatchLoss reads nothing when the mandate sets no loss limit).
func (s *Session) watchLoss(ctx context.Context) {
	tick := time.NewTicker(LossWatchEvery)
	defer tick.Stop()
	events := s.eng.Bus.Subscribe(ctx, 64)
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case ev, ok := <-events:
			if !ok {
				return
			}
			if ev.Kind != engine.EvOrderUpdate || ev.Order == nil || ev.Order.FillQty.Sign() <= 0 {
				continue
			}
		}
		s.gate.WatchLoss(ctx, s.broker, s.key)
	}
}
