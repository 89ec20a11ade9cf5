package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/counter"
	"cockpit/live/gate"
	"cockpit/live/paper"
)

// bracketBroker reports two orders the broker created with every accepted one (a bracket's
// take-profit and stop-loss).
type bracketBroker struct{ *paper.Broker }

func (b bracketBroker) PlaceOrder(ctx context.Context, r live.OrderRequest) (live.Order, error) {
	o, err := b.Broker.PlaceOrder(ctx, r)
	o.Children = 2
	return o, err
}

// TestBracketChildrenSurviveTheCounterFile: a bracket's legs count for the day in the journal
// (the count's source of truth, DV14), so losing the un-fsynced counter file after a crash
// does not lose them.
func TestBracketChildrenSurviveTheCounterFile(t *testing.T) {
	g, db, _, p, in := settleGate(t)
	ctx := context.Background()
	if d := g.Submit(ctx, gate.Submission{Broker: bracketBroker{p}, BrokerKey: "paper", Intent: &in}); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("got %s, want accepted", d.Message())
	}
	if err := os.WriteFile(g.Root.CounterPath("paper"), nil, 0o600); err != nil { // the file lost in a crash
		t.Fatal(err)
	}
	if got, err := counter.DailyCount(ctx, g.Root, db, "paper", time.Now()); err != nil || got != 3 {
		t.Fatalf("day count without the counter file: got %d, %v; want 3 (the order and its two legs)", got, err)
	}
}

// TestAnchorFailureStopsTheNextOrder: once a background anchor write has failed, no order is
// sent: the audit probe refuses and the gate latches the halt before the broker is called.
func TestAnchorFailureStopsTheNextOrder(t *testing.T) {
	g, db, _, p, in := settleGate(t)
	anchor := filepath.Join(g.Root.Dir(), "audit-head.json")
	db.SetAnchor(anchor)
	db.AnchorEvery = time.Millisecond
	ctx := context.Background()
	if d := g.Submit(ctx, gate.Submission{Broker: p, Intent: &in}); d.Outcome != live.OutcomeAccepted || d.AuditErr != nil {
		t.Fatalf("first order: %s %v", d.Message(), d.AuditErr)
	}
	if err := db.flushAnchor(); err != nil { // the first head is anchored
		t.Fatal(err)
	}
	db.lazy.mu.Lock()
	db.lazy.closed = false // keep writing in the background
	db.lazy.mu.Unlock()
	if err := os.WriteFile(anchor, []byte("garbage"), 0o600); err != nil { // unreadable from now on
		t.Fatal(err)
	}
	in2 := in
	g.Submit(ctx, gate.Submission{Broker: p, Intent: &in2}) // its anchor write fails in the background
	deadline := time.Now().Add(5 * time.Second)
	for db.anchorErr() == nil {
		if time.Now().After(deadline) {
			t.Fatal("the background anchor write never failed; setup broken")
		}
		time.Sleep(time.Millisecond)
	}
	in3 := in
	if d := g.Submit(ctx, gate.Submission{Broker: p, Intent: &in3}); d.Forwarded {
		t.Fatalf("order %s was sent after the store knew its anchor write failed", d.ClientOrderID)
	}
	if _, latched := g.Latched(); !latched {
		t.Fatal("the gate did not latch the audit halt")
	}
}

// cancelOnProbe cancels the caller's context while the audit probe runs.
type cancelOnProbe struct {
	*DB
	cancel func()
}

func (c cancelOnProbe) ProbeAudit(ctx context.Context) error {
	err := c.DB.ProbeAudit(ctx)
	c.cancel()
	return err
}

// TestCancelledCallDoesNotLatch: an agent call cancelled before its write-ahead row is written
// is refused as cancelled; nothing was sent or lost, so no session-wide audit halt.
func TestCancelledCallDoesNotLatch(t *testing.T) {
	g, db, _, p, in := settleGate(t)
	ctx, cancel := context.WithCancel(context.Background())
	g.Audit = cancelOnProbe{db, cancel}
	d := g.Submit(ctx, gate.Submission{Broker: p, Intent: &in})
	if d.Forwarded {
		t.Fatal("a cancelled call was sent")
	}
	if h, latched := g.Latched(); latched {
		t.Fatalf("a cancelled call latched the audit halt: %s", h.Message())
	}
	if d.Reason != live.ReasonCancelled {
		t.Fatalf("reason: got %s, want %s", d.Reason, live.ReasonCancelled)
	}
}
