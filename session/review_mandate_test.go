package session

import (
	"context"
	"testing"
	"time"

	"cockpit/engine"
	"cockpit/live"
	"cockpit/live/money"
	"cockpit/store"
)

// TestReviewVoidedByANewMandate is issue 28 §4's repro through the real commit path: a $6,000
// buy waits for review under the default paper mandate ($5,000 a order); the operator commits
// a mandate with a $1,000 cap, then approves the card. The card's numbers were computed under
// the old mandate: it was approved and the $6,000 order went out. The commit now voids the
// waiting card, the approval finds nothing to approve, and nothing is sent.
func TestReviewVoidedByANewMandate(t *testing.T) {
	s, err := Open(testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	done := make(chan engine.Result, 1)
	go func() {
		done <- s.eng.NewTurn("strategy").Call(ctx, "place_order", map[string]any{"symbol": "AAPL", "side": "buy", "notional": "6000", "reason": "test"})
	}()
	var card store.Approval
	for deadline := time.Now().Add(time.Minute); card.ID == ""; time.Sleep(5 * time.Millisecond) { // a hung-test guard
		if time.Now().After(deadline) {
			t.Fatal("no review card appeared")
		}
		if pending, _ := s.rt.DB.Approvals(ctx, store.ApprovalPending, 10); len(pending) == 1 {
			card = pending[0]
		}
	}
	if card.Limit != live.LimitOrderNotional || card.LimitValue != "5000" {
		t.Fatalf("card %s %s > %s, want the $5,000 order cap", card.Limit, card.Attempted, card.LimitValue)
	}
	d := live.DefaultPaperDraft()
	d.HardCaps.MaxOrderNotionalUSD = money.FromInt(1000)
	doc, err := d.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CommitMandate(s.rt, "paper", doc, "screen", 30, "", live.Operator("op", "screen")); err != nil {
		t.Fatalf("commit the $1,000 mandate: %v", err)
	}
	_, _ = s.rt.DB.Resolve(ctx, card.ID, store.ApprovalApproved, "op", "") // as `cockpit approvals approve` does
	var r engine.Result
	select {
	case r = <-done:
	case <-time.After(time.Minute): // a hung-test guard
		t.Fatal("the order call did not end")
	}
	if r.Status == engine.StatusOK || r.Code != live.ReasonApprovalVoided {
		t.Errorf("approved after the new mandate: %s %s %q, want denied %s", r.Status, r.Code, r.Detail, live.ReasonApprovalVoided)
	}
	if orders, _ := s.broker.OpenOrders(ctx); len(orders) != 0 {
		t.Errorf("%d orders at the broker, want none", len(orders))
	}
	if pos, _ := s.broker.Positions(ctx); len(pos) != 0 {
		t.Errorf("positions %+v at the broker, want none: the $6,000 order went out", pos)
	}
	a, err := s.rt.DB.Approval(ctx, card.ID)
	if err != nil || a.State != store.ApprovalVoided {
		t.Errorf("card %s: %s %v, want voided", card.ID, a.State, err)
	}
}
