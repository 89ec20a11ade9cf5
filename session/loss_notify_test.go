package session

import (
	"context"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/notify"
	"cockpit/store"
)

// TestAcceptanceLossLimitHaltsAndPages is issue 29's acceptance end to end: a paper session
// whose mandate sets max_daily_loss_usd 500 buys 100 CRSH at 100; the replayed market (on the
// fake clock) falls to 50, a 5,000 loss; with no order from anyone the session ends HALTED —
// the broker's HALT file on disk with reason loss_limit, the trip audited with reason
// loss_limit — and the loss_limit message reaches the local webhook configured in [notify],
// its send recorded in the audit.
func TestAcceptanceLossLimitHaltsAndPages(t *testing.T) {
	srv, got, _ := hook(t, nil)
	s, clock := openCrashSession(t, "[notify]\nrate_per_minute = 10000\n[notify.sinks.hook]\ntype = \"webhook\"\nurl_env = \""+hookEnv+"\"\n",
		func(k string) string {
			if k == hookEnv {
				return srv.URL + "/hook"
			}
			return ""
		})
	ctx := context.Background()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { s.Run(runCtx); close(done) }()
	defer func() { stop(); <-done }()
	clock.Advance(time.Second) // the price falls to 50: equity 95,000 against the day's 100,000

	var d delivery
	for d = wait(t, got, "the loss-limit message"); d.Event != "loss_limit"; d = wait(t, got, "the loss-limit message") {
	}
	if d.Priority != "urgent" || !strings.Contains(d.Text, "loss_limit: daily loss") || !strings.Contains(d.Text, "USD > limit 500 ") {
		t.Errorf("loss_limit payload %+v, want urgent and naming the daily loss and its limit", d.WebhookPayload)
	}
	a, err := halt.ReadSentinel(s.rt.Root, live.HaltSentinel, live.BrokerScope("paper"))
	if err != nil || a == nil || !strings.HasPrefix(a.Reason, "loss_limit") {
		t.Fatalf("HALT file = %+v (%v), want present with reason loss_limit", a, err)
	}
	if !halt.IsHalted(s.rt.Root, "paper") {
		t.Error("the broker is not HALTED")
	}
	// The trip is audited; the notification's send is too (it lands just after the POST).
	var tripped, sent bool
	deadline := time.Now().Add(30 * time.Second) // a hang guard, not a timing assertion
	for !(tripped && sent) && time.Now().Before(deadline) {
		evs, err := s.rt.DB.Events(ctx, store.Filter{Limit: 500})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			tripped = tripped || (e.Type == live.KindHaltTripped && e.Reason == string(live.ReasonLossLimit))
			sent = sent || (e.Type == notify.KindNotification && e.Outcome == notify.OutcomeSent && strings.Contains(e.Payload, "loss_limit"))
		}
		if !(tripped && sent) {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if !tripped || !sent {
		t.Errorf("audit: halt_tripped loss_limit %v, notification sent %v; want both", tripped, sent)
	}
}
