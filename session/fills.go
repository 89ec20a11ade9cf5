package session

import (
	"context"

	"cockpit/live"
)

// FollowFills records the fills broker b (key) reports into the runtime's audit trail
// (live.FillRecorder) until stop is called; stop returns once the updates b had delivered are
// recorded. Every process that owns a broker account follows it: a session from Open to Close
// (its on_quit flatten included), a verb for as long as it holds the account. onFail is told
// when a fill could not be recorded.
func (rt *Runtime) FollowFills(b live.Broker, key, session string, onFail func(error)) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	rec := &live.FillRecorder{Broker: key, Audit: rt.Audit, Ledger: rt.DB, Session: session, Now: rt.Now,
		OnFail: func(err error) {
			rt.Log.Error("fill not recorded in the audit trail", "broker", key, "err", err)
			if onFail != nil {
				onFail(err)
			}
		}}
	updates := b.Subscribe(ctx)
	done := make(chan struct{})
	go func() { defer close(done); rec.Follow(ctx, updates) }()
	return func() { cancel(); <-done }
}
