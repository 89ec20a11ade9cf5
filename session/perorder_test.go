package session

import (
	"context"
	"testing"

	"cockpit/live"
	"cockpit/live/money"
)

// TestSnapshotPerOrder (issue 12, issue 28): the snapshot carries the last and the largest of the
// agent's orders placed today and how many went on an approved breach, read from the audit
// trail: a supervisor, an SSH screen and a headless owner (which no screen follows) all show
// the same numbers. An operator's order and a denial are not the agent's orders.
func TestSnapshotPerOrder(t *testing.T) {
	s, err := Open(testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	placed := func(actor live.Principal, kind, n, grant string) {
		t.Helper()
		a := money.MustParse(n)
		if err := s.rt.Audit.Record(ctx, live.AuditRecord{Time: s.rt.Now(), Actor: actor, Kind: kind, Outcome: live.OutcomeAccepted,
			Broker: s.key, ApprovalID: grant, Notional: &a}); err != nil {
			t.Fatal(err)
		}
	}
	agent := live.Agent("strategy", s.id)
	placed(agent, live.KindOrderPlaced, "5950", "ap_0001") // an approved breach
	placed(agent, live.KindOrderPlaced, "1205", "")
	placed(live.Operator("alice", s.id), live.KindOrderPlaced, "9000", "") // the operator's close
	placed(agent, live.KindOrderRejected, "7000", "")
	snap := s.Backend().Snapshot(ctx)
	if snap.LargestOrder.Cmp(money.MustParse("5950")) != 0 || snap.LastOrder.Cmp(money.MustParse("1205")) != 0 || snap.Breaches != 1 {
		t.Errorf("largest %s last %s breaches %d, want 5950 1205 1", snap.LargestOrder, snap.LastOrder, snap.Breaches)
	}
	if !snap.PauseTill.IsZero() || snap.PauseWhy != "" {
		t.Errorf("not paused, got %v %q", snap.PauseTill, snap.PauseWhy)
	}
}
