package gate_test

import (
	"context"
	"strings"
	"testing"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/livetest"
)

// TestApprovalBoundToItsMandate (issue 28 §4): an approval waives the breaches its card showed
// only under the mandate the card was computed under. A $6,000 order paused under a $5,000
// cap and approved is refused mandate_changed once the cap became $1,000, whatever the review
// store did with the card; under the same mandate it goes.
func TestApprovalBoundToItsMandate(t *testing.T) {
	in := func() *live.OrderIntent {
		return &live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity, NotionalUSD: amt("6000")}
	}
	approved := func(f *fixture, ap *live.Approval) gate.Decision {
		return f.gate.Submit(context.Background(), gate.Submission{Broker: f.broker, Intent: in(), Actor: live.Agent("test", "s1"), Approval: ap})
	}
	cases := []struct {
		name      string
		recommit  bool
		unbound   bool
		wantAllow bool
	}{
		{"same mandate", false, false, true},
		{"mandate recommitted with a lower cap", true, false, false},
		{"a grant with no mandate recorded", false, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, "")
			d := f.gate.Submit(context.Background(), gate.Submission{Broker: f.broker, Intent: in(), Actor: live.Agent("test", "s1")})
			if d.Verdict != live.PauseForReauth || d.Read == nil || d.Read.MandateHash == "" {
				t.Fatalf("first run: %s %s, want a pause with the verified mandate's hash", d.Verdict, d.Reason)
			}
			ap := &live.Approval{Grant: "ap_1", Mandate: d.Read.MandateHash}
			for _, b := range d.Breaches {
				ap.Waives = append(ap.Waives, *b)
			}
			if c.unbound {
				ap.Mandate = ""
			}
			if c.recommit {
				livetest.Commit(t, f.root, "paper", strings.Replace(livetest.MandateDoc, `"max_order_notional_usd": 5000`, `"max_order_notional_usd": 1000`, 1), f.clock.Now())
			}
			got := approved(f, ap)
			switch {
			case c.wantAllow && (got.Verdict != live.Allow || got.Outcome != live.OutcomeAccepted):
				t.Errorf("approved under the same mandate: %s %s, want it sent", got.Verdict, got.Reason)
			case !c.wantAllow && (got.Verdict != live.Deny || got.Reason != live.ReasonMandateChanged || got.Forwarded):
				t.Errorf("approved under another mandate: %s %s forwarded=%v, want DENY %s", got.Verdict, got.Reason, got.Forwarded, live.ReasonMandateChanged)
			}
		})
	}
}
