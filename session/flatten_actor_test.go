package session

import (
	"context"
	"sync"
	"testing"

	"cockpit/live"
	"cockpit/live/money"
	"cockpit/store"
)

// TestFlattenCancelsAsOperator: an operator's flatten on a running session cancels the
// resting orders itself, audited as that operator; the halt watcher, started by the HALT file
// the flatten writes, no longer takes the cancels first (it did, as system:halt-watcher,
// before the flatten lock was held across the write).
func TestFlattenCancelsAsOperator(t *testing.T) {
	s, err := Open(testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); s.Run(ctx) }()
	defer func() { cancel(); wg.Wait(); s.Close() }()
	placeResting(t, s)
	rep := s.Backend().Flatten(WithOperator(ctx, "tui:flattener"), nil)
	if !rep.Flat() {
		t.Fatalf("flatten: %s", rep.Summary())
	}
	evs, err := s.rt.DB.Events(ctx, store.Filter{Type: live.KindOrderCancelled, Limit: 10})
	if err != nil || len(evs) != 1 {
		t.Fatalf("order_cancelled events: %d %v", len(evs), err)
	}
	if e := evs[0]; e.ActorKind != "operator" || e.ActorID != "tui:flattener" {
		t.Errorf("cancel audited as %s:%s, want operator:tui:flattener", e.ActorKind, e.ActorID)
	}
}

// placeResting has the strategy agent place a buy limit under the bid, which rests.
func placeResting(t *testing.T, s *Session) {
	t.Helper()
	ctx := context.Background()
	q, err := s.broker.Quote(ctx, "MSFT")
	if err != nil {
		t.Fatal(err)
	}
	limit := q.Bid.Mul(money.MustParse("0.996")).Round(2)
	r := s.eng.NewTurn("strategy").Call(ctx, "place_order", map[string]any{"symbol": "MSFT", "side": "buy", "quantity": "1",
		"type": "limit", "limit_price": limit.String(), "reason": "rests"})
	if !r.OK() {
		t.Fatalf("resting order: %+v", r)
	}
}
