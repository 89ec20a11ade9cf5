package session

import (
	"context"
	"testing"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/money"
)

// TestSnapshotPerOrder (issue 12): the snapshot carries the last and the largest order of
// the day and how many of them went on an approved breach.
func TestSnapshotPerOrder(t *testing.T) {
	s, err := Open(testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := s.Backend()
	accepted := func(n, grant string) *gate.Decision {
		a := money.MustParse(n)
		return &gate.Decision{Verdict: live.Allow, Outcome: live.OutcomeAccepted, ApprovalID: grant,
			Intent: &live.OrderIntent{NotionalUSD: &a}}
	}
	b.noteDecision(accepted("5950", "ap_0001")) // an approved breach
	b.noteDecision(accepted("1205", ""))
	b.noteDecision(&gate.Decision{Verdict: live.Deny, Intent: accepted("9000", "").Intent})
	snap := b.Snapshot(context.Background())
	if snap.LargestOrder.Cmp(money.MustParse("5950")) != 0 || snap.LastOrder.Cmp(money.MustParse("1205")) != 0 || snap.Breaches != 1 {
		t.Errorf("largest %s last %s breaches %d, want 5950 1205 1", snap.LargestOrder, snap.LastOrder, snap.Breaches)
	}
	if !snap.PauseTill.IsZero() || snap.PauseWhy != "" {
		t.Errorf("not paused, got %v %q", snap.PauseTill, snap.PauseWhy)
	}
}
