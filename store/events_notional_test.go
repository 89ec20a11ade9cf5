package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/money"
)

// TestAgentOrdersSince is issue 11 item 4 and issue 28: the day's largest and last of the
// agent's orders, and how many went on an approval, come from the typed notional column of
// order events, whatever their summary text says; other brokers, other kinds, the operator's
// orders and yesterday's are not counted.
func TestAgentOrdersSince(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "cockpit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	day := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	amt := func(s string) *money.Amount { a := money.MustParse(s); return &a }
	agent, operator := live.Agent("strategy", "s1"), live.Operator("alice", "s1")
	recs := []live.AuditRecord{
		{Time: day.Add(-time.Hour), Kind: live.KindOrderPlaced, Broker: "paper", Notional: amt("9000"), Intent: "yesterday"},
		{Time: day.Add(time.Hour), Kind: live.KindOrderPlaced, Broker: "paper", Notional: amt("1500.25"), Intent: "no dollars here", ApprovalID: "ap_1"},
		{Time: day.Add(2 * time.Hour), Kind: live.KindOrderPlaced, Broker: "paper", Notional: amt("900"), Intent: "buy $99999 AAPL"},
		{Time: day.Add(2 * time.Hour), Kind: live.KindOrderPlaced, Broker: "alpaca", Notional: amt("7000")},
		{Time: day.Add(3 * time.Hour), Kind: live.KindBreach, Broker: "paper", Notional: amt("8000")},
		{Time: day.Add(3 * time.Hour), Kind: live.KindOrderRejected, Broker: "paper", Notional: amt("6000")},
		{Time: day.Add(3 * time.Hour), Kind: live.KindOrderPlaced, Broker: "paper", Notional: amt("5000"), Actor: operator},
		{Time: day.Add(4 * time.Hour), Kind: live.KindOrderPlaced, Broker: "paper"},
	}
	for _, r := range recs {
		if r.Actor.Kind == "" {
			r.Actor = agent
		}
		if err := db.Record(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.AgentOrdersSince(ctx, "paper", day)
	if err != nil {
		t.Fatal(err)
	}
	if got.Largest.Cmp(money.MustParse("1500.25")) != 0 || got.Last.Cmp(money.MustParse("900")) != 0 || got.Approved != 1 {
		t.Errorf("AgentOrdersSince = largest %s last %s approved %d, want 1500.25 900 1", got.Largest, got.Last, got.Approved)
	}
	if got, _ := db.AgentOrdersSince(ctx, "ibkr", day); got.Largest.Sign() != 0 || got.Last.Sign() != 0 {
		t.Errorf("AgentOrdersSince(no orders) = %+v, want zeros", got)
	}
	if rep, err := db.Verify(ctx, nil); err != nil || !rep.OK() {
		t.Errorf("the chain does not verify with the notional column: %v %+v", err, rep.Break)
	}
}
