package engine_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"cockpit/engine"
	"cockpit/internal/enginetest"
	"cockpit/live"
	"cockpit/live/counter"
	"cockpit/store"
)

// scriptAgent places one order per turn from its list, then idles; it keeps what it got.
type scriptAgent struct {
	mu     sync.Mutex
	orders []map[string]any
	got    []engine.Result
}

func (a *scriptAgent) Name() string { return "strategy" }

func (a *scriptAgent) Turn(ctx context.Context, t *engine.Turn) error {
	a.mu.Lock()
	n := len(a.got)
	a.mu.Unlock()
	if n >= len(a.orders) {
		return nil
	}
	r := t.Call(ctx, "place_order", a.orders[n])
	a.mu.Lock()
	a.got = append(a.got, r)
	a.mu.Unlock()
	return nil
}

func (a *scriptAgent) results() []engine.Result {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]engine.Result(nil), a.got...)
}

func pendingIDs(t *testing.T, f *enginetest.Fixture) []string {
	t.Helper()
	items, err := f.DB.Approvals(context.Background(), store.ApprovalPending, 10)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, it := range items {
		ids = append(ids, it.ID)
	}
	return ids
}

// TestReviewBlocksOnlyItsOrder (issue 29 §5): with one review pending, the engine's loop still
// submits the agent's next in-mandate order; the reviewed order waits for its answer and, once
// approved, goes through the gate again, so the day's count is exact (2 orders, 2 counted).
func TestReviewBlocksOnlyItsOrder(t *testing.T) {
	f := enginetest.New(t)
	f.Engine.DetachReviews = true
	a := &scriptAgent{orders: []map[string]any{enginetest.Buy("AAPL", "6000"), enginetest.Buy("MSFT", "100")}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.Engine.Run(ctx, a, time.Millisecond); close(done) }()
	defer func() { cancel(); <-done }()

	deadline := time.Now().Add(5 * time.Second)
	for len(a.results()) < 2 && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	got := a.results()
	if len(got) < 2 {
		t.Fatalf("the agent made %d calls in 5 s with one review pending, want 2: a review blocks the agent", len(got))
	}
	if got[0].Code != engine.ReasonReviewPending || got[0].ApprovalID == "" {
		t.Errorf("first order: %s %q %q, want review_pending with its review id", got[0].Status, got[0].Code, got[0].Detail)
	}
	if !got[1].OK() {
		t.Fatalf("in-mandate order with a review pending: %s %q %q, want ok", got[1].Status, got[1].Code, got[1].Detail)
	}
	if ids := pendingIDs(t, f); len(ids) != 1 || ids[0] != got[0].ApprovalID {
		t.Fatalf("pending reviews %v, want [%s]", ids, got[0].ApprovalID)
	}
	if n := f.Placed(); n != 1 {
		t.Fatalf("orders at the broker while the review waits = %d, want 1 (the reviewed one waits)", n)
	}
	if _, err := f.DB.Resolve(context.Background(), got[0].ApprovalID, store.ApprovalApproved, "operator", ""); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return f.Placed() == 2 && f.Engine.Awaiting() == 0 })
	if n, err := counter.DailyCount(context.Background(), f.Root, f.DB, live.PaperBroker, f.Clock.Now()); err != nil || n != 2 {
		t.Errorf("day count = %d (%v), want 2", n, err)
	}
	a2, err := f.DB.Approval(context.Background(), got[0].ApprovalID)
	if err != nil || !a2.Consumed {
		t.Errorf("approved review %s: consumed %v (%v), want its grant used once", got[0].ApprovalID, a2.Consumed, err)
	}
}

// TestDetachedReviewVoidedByHalt: a halt stops a review waiting in the background as it stops
// a turn: the review is voided, audited, and its order never placed.
func TestDetachedReviewVoidedByHalt(t *testing.T) {
	f := enginetest.New(t)
	f.Engine.DetachReviews = true
	a := &scriptAgent{orders: []map[string]any{enginetest.Buy("AAPL", "6000")}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.Engine.Run(ctx, a, time.Millisecond); close(done) }()
	defer func() { cancel(); <-done }()
	waitFor(t, func() bool { return len(a.results()) == 1 && f.Engine.Awaiting() == 1 })
	f.Engine.SetHalted(true)
	waitFor(t, func() bool { return f.Engine.Awaiting() == 0 })
	id := a.results()[0].ApprovalID
	it, err := f.DB.Approval(context.Background(), id)
	if err != nil || it.State != store.ApprovalVoided {
		t.Errorf("review %s after a halt: %v (%v), want voided", id, it.State, err)
	}
	if n := f.Placed(); n != 0 {
		t.Errorf("orders placed = %d, want 0", n)
	}
}

// TestReviewOutsideRunWaits: a call outside Run (an MCP client's) still waits for its answer.
func TestReviewOutsideRunWaits(t *testing.T) {
	f := enginetest.New(t)
	f.Engine.DetachReviews = true
	done := f.Human(f.Resolve(store.ApprovalApproved, ""))
	r := f.Call("place_order", enginetest.Buy("AAPL", "6000"))
	<-done
	if !r.OK() || r.ApprovalID == "" {
		t.Errorf("got %s %q %q, want ok after the approval", r.Status, r.Code, r.Detail)
	}
}
