package tui

import (
	"strings"
	"testing"
	"time"

	"cockpit/engine"
	"cockpit/live"
)

// TestReviewBannerCountsDown (issue 29 §5): a waiting review has its own line under the status
// bar: how many wait, the one due first with its order and the countdown to its auto-deny,
// and the keys; a screen whose role may not approve does not offer a; none waiting, no line.
func TestReviewBannerCountsDown(t *testing.T) {
	tests := []struct {
		name    string
		w       int
		advance time.Duration
		may     func(string) bool
		want    []string
		not     []string
	}{
		{"wide", 120, 0, nil, []string{"⏳ 2 reviews wait for you — ap_0001 BUY $6000 AAPL — auto-denied in 4:31 — 4 open · a approve · d deny"}, nil},
		{"a minute on", 120, time.Minute, nil, []string{"auto-denied in 3:31"}, nil},
		{"narrow", 80, 0, nil, []string{"⏳ 2 reviews wait — ap_0001 auto-denied in 4:31 — 4 open"}, nil},
		{"viewer", 120, 0, func(a string) bool { return a != "approve" && a != "deny" }, []string{"auto-denied in 4:31 — 4 open"}, []string{"a approve", "d deny"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _, clock := newTestModel(t, tt.w, 40)
			m.c.May = tt.may
			clock.Advance(tt.advance)
			lines := strings.Split(screen(m), "\n")
			if len(lines) < 2 {
				t.Fatal("no screen")
			}
			for _, w := range tt.want {
				if !strings.Contains(lines[1], w) {
					t.Errorf("banner %q lacks %q", lines[1], w)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(lines[1], w) {
					t.Errorf("banner %q offers %q", lines[1], w)
				}
			}
		})
	}
	m, be, _ := newTestModel(t, 120, 40)
	s := be.snap
	s.Reviews = nil
	m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
	if out := screen(m); strings.Contains(out, "wait for you") {
		t.Errorf("no review waits, yet a banner:\n%s", out)
	}
}

// TestAgentLineSaysTheOrderWaits: the agent's last action for an order left waiting for a
// human says so (not "denied").
func TestAgentLineSaysTheOrderWaits(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	m.Update(EngineMsg(engine.Event{Gen: 1, Kind: engine.EvToolCall, Agent: "strategy", Tool: "place_order", Result: &engine.Result{
		Status: engine.StatusDenied, Decision: live.DecisionAsk, Code: engine.ReasonReviewPending, ApprovalID: "ap_0003"}}))
	if got := m.data.Agent.last; got != "place_order waits for review ap_0003" {
		t.Errorf("agent line %q, want it waiting for review ap_0003", got)
	}
}
