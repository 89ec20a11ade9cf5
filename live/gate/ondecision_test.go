package gate_test

import (
	"context"
	"testing"

	"cockpit/live"
	"cockpit/live/auditsink"
	"cockpit/live/gate"
	"cockpit/live/jsonv"
	"cockpit/live/livetest"
)

// TestEveryDecisionReachesOnDecision: a submission without a broker, or naming an invalid
// one, is denied invalid_broker, audited once, and seen by OnDecision like every other
// decision (the metrics and the engine's event stream read it there).
func TestEveryDecisionReachesOnDecision(t *testing.T) {
	tests := []struct {
		name string
		s    gate.Submission
	}{
		{"no broker", gate.Submission{Tool: "place_order", Args: jsonv.ObjectOf("symbol", "AAPL")}},
		{"invalid broker name", gate.Submission{BrokerKey: "../etc", Tool: "place_order", Args: jsonv.ObjectOf("symbol", "AAPL")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := livetest.Root(t)
			audit := &auditsink.Memory{}
			var seen []gate.Decision
			g := &gate.Gate{Root: root, Audit: audit, Journal: &live.MemoryJournal{}, Mandates: livetest.Ledger(root),
				OnDecision: func(d gate.Decision) { seen = append(seen, d) }}
			d := g.Submit(context.Background(), tt.s)
			if d.Verdict != live.Deny || d.Reason != live.ReasonInvalidBroker {
				t.Fatalf("decision: got %s %s, want DENY %s", d.Verdict, d.Reason, live.ReasonInvalidBroker)
			}
			if len(seen) != 1 || seen[0].Reason != live.ReasonInvalidBroker {
				t.Errorf("OnDecision saw %d decisions (%v), want the one denial", len(seen), seen)
			}
			if got := len(audit.Records()); got != 1 {
				t.Errorf("audit records: got %d, want 1", got)
			}
		})
	}
}
