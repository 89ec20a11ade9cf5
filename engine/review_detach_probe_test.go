package engine_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"cockpit/engine"
	"cockpit/internal/enginetest"
	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/livetest"
	"cockpit/store"
)

func runDetached(t *testing.T, f *enginetest.Fixture, a engine.Agent) (cancel func(), done chan struct{}) {
	t.Helper()
	f.Engine.DetachReviews = true
	ctx, c := context.WithCancel(context.Background())
	done = make(chan struct{})
	go func() { f.Engine.Run(ctx, a, time.Millisecond); close(done) }()
	t.Cleanup(func() { c(); <-done })
	return c, done
}

func countKind(f *enginetest.Fixture, kind, approval string) int {
	n := 0
	for _, e := range f.Events() {
		if e.Type == kind && e.ApprovalID == approval {
			n++
		}
	}
	return n
}

// Quitting (Run's ctx ends) voids a detached review, audits it once and Run waits for it.
func TestProbeQuitVoidsDetachedOnce(t *testing.T) {
	f := enginetest.New(t)
	a := &scriptAgent{orders: []map[string]any{enginetest.Buy("AAPL", "6000")}}
	cancel, done := runDetached(t, f, a)
	waitFor(t, func() bool { return len(a.results()) == 1 && f.Engine.Awaiting() == 1 })
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return 5 s after its ctx ended with a detached review")
	}
	id := a.results()[0].ApprovalID
	it, _ := f.DB.Approval(context.Background(), id)
	if it.State != store.ApprovalVoided {
		t.Errorf("state %s, want voided", it.State)
	}
	if n := countKind(f, live.KindApprovalVoided, id); n != 1 {
		t.Errorf("approval_voided rows %d, want 1", n)
	}
	if n := countKind(f, live.KindOrderRejected, id); n != 1 {
		t.Errorf("terminal order_rejected rows %d, want 1", n)
	}
}

// The agent fills the day's cap while the review waits: the approved order is refused.
func TestProbeDayCapReachedMeanwhile(t *testing.T) {
	doc := `{"hard_caps": {"account_funding_usd": 100000, "max_order_notional_usd": 5000,
 "max_total_exposure_usd": 100000, "max_leverage": 1, "allowed_instruments": ["equity", "etf"], "max_trades_per_day": 2},
 "universe": {"asset_classes": ["us_equity", "us_etf"], "min_market_cap_usd": null, "min_avg_daily_volume_usd": null,
 "exclude_symbols": ["GME"]}}`
	f := enginetest.New(t, enginetest.WithMandate(doc))
	a := &scriptAgent{orders: []map[string]any{enginetest.Buy("AAPL", "6000"), enginetest.Buy("MSFT", "100"), enginetest.Buy("MSFT", "101")}}
	runDetached(t, f, a)
	waitFor(t, func() bool { return len(a.results()) == 3 })
	if f.Placed() != 2 {
		t.Fatalf("placed %d, want 2", f.Placed())
	}
	id := a.results()[0].ApprovalID
	if _, err := f.DB.Resolve(context.Background(), id, store.ApprovalApproved, "operator", ""); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return f.Engine.Awaiting() == 0 })
	if f.Placed() != 2 {
		t.Fatalf("placed %d after the approval, want 2 (the day's cap was reached meanwhile)", f.Placed())
	}
}

// A new mandate voids the waiting review (as session.VoidReviews does); count the audit rows.
func TestProbeMandateChangeVoidsDetached(t *testing.T) {
	f := enginetest.New(t)
	a := &scriptAgent{orders: []map[string]any{enginetest.Buy("AAPL", "6000")}}
	runDetached(t, f, a)
	waitFor(t, func() bool { return len(a.results()) == 1 && f.Engine.Awaiting() == 1 })
	id := a.results()[0].ApprovalID
	livetest.Commit(t, f.Root, live.PaperBroker, "", f.Clock.Now())
	ids, err := f.DB.VoidPendingFor(context.Background(), live.PaperBroker, "new mandate")
	if err != nil || len(ids) != 1 {
		t.Fatal(ids, err)
	}
	f.DB.Record(context.Background(), live.AuditRecord{Time: f.Clock.Now(), Actor: live.System("review", ""), Kind: live.KindApprovalVoided,
		Outcome: string(live.ReviewVoided), Broker: live.PaperBroker, ApprovalID: id, Intent: "voided"})
	waitFor(t, func() bool { return f.Engine.Awaiting() == 0 })
	if f.Placed() != 0 {
		t.Fatal("placed after the mandate changed")
	}
	t.Logf("approval_voided rows for %s: %d", id, countKind(f, live.KindApprovalVoided, id))
}

// The approval comes after a new mandate was committed but before any void: the gate refuses.
func TestProbeApprovedUnderOldMandate(t *testing.T) {
	f := enginetest.New(t)
	a := &scriptAgent{orders: []map[string]any{enginetest.Buy("AAPL", "6000")}}
	runDetached(t, f, a)
	waitFor(t, func() bool { return len(a.results()) == 1 && f.Engine.Awaiting() == 1 })
	id := a.results()[0].ApprovalID
	livetest.Commit(t, f.Root, live.PaperBroker, `{"hard_caps": {"account_funding_usd": 100000, "max_order_notional_usd": 7000,
 "max_total_exposure_usd": 100000, "max_leverage": 1, "allowed_instruments": ["equity", "etf"], "max_trades_per_day": 20},
 "universe": {"asset_classes": ["us_equity", "us_etf"], "min_market_cap_usd": null, "min_avg_daily_volume_usd": null,
 "exclude_symbols": ["GME"]}}`, f.Clock.Now())
	f.DB.Resolve(context.Background(), id, store.ApprovalApproved, "operator", "")
	waitFor(t, func() bool { return f.Engine.Awaiting() == 0 })
	if f.Placed() != 0 {
		t.Fatal("an approval computed under the old mandate was placed")
	}
}

// TestDetachedDenialsCountTowardsPacing: 5 denied writes in a minute pause the agent, whether
// a human's deny comes to a blocking review or to one left waiting in the background (before
// the fix a detached review's outcome never reached noteDenial).
func TestDetachedDenialsCountTowardsPacing(t *testing.T) {
	for _, detach := range []bool{false, true} {
		t.Run(map[bool]string{false: "blocking", true: "detached"}[detach], func(t *testing.T) {
			f := enginetest.New(t)
			var orders []map[string]any
			for i := 0; i < 5; i++ {
				orders = append(orders, enginetest.Buy("AAPL", []string{"6001", "6002", "6003", "6004", "6005"}[i]))
			}
			a := &scriptAgent{orders: orders}
			stopHuman := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { // a human denies every card as it comes
				defer wg.Done()
				for {
					select {
					case <-stopHuman:
						return
					case <-time.After(2 * time.Millisecond):
					}
					items, _ := f.DB.Approvals(context.Background(), store.ApprovalPending, 10)
					for _, it := range items {
						f.DB.Resolve(context.Background(), it.ID, store.ApprovalDenied, "operator", "no")
					}
				}
			}()
			defer func() { close(stopHuman); wg.Wait() }()
			f.Engine.DetachReviews = detach
			ctx, c := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { f.Engine.Run(ctx, a, time.Millisecond); close(done) }()
			defer func() { c(); <-done }()
			waitFor(t, func() bool { return len(a.results()) == 5 && f.Engine.Awaiting() == 0 })
			waitFor(t, func() bool { // every call's terminal record is in
				n := 0
				for _, e := range f.Events() {
					if e.Type == live.KindOrderRejected && e.Reason == string(live.ReasonApprovalDenied) {
						n++
					}
				}
				return n == 5
			})
			if until, _ := f.Engine.CoolingDown(); until.IsZero() {
				t.Errorf("5 orders denied by a human within a minute (detach=%v): the agent is not cooling down", detach)
			}
		})
	}
}

// argsAgent keeps the object it passed and changes it after review_pending.
type argsAgent struct {
	mu   sync.Mutex
	args *jsonv.Object
	got  []engine.Result
}

func (a *argsAgent) Name() string { return "strategy" }
func (a *argsAgent) Turn(ctx context.Context, t *engine.Turn) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.got) > 0 {
		return nil
	}
	a.args = jsonv.ObjectOf("symbol", "AAPL", "side", "buy", "notional", jsonv.Number("6000"), "reason", "x")
	r := t.CallJSON(ctx, "place_order", a.args)
	a.got = append(a.got, r)
	a.args.Set("symbol", "MSFT") // after review_pending, the agent reuses its object
	return nil
}

// TestDetachedApprovalRecordsTheReviewedArgs: the detached wait keeps the agent's own args
// object (sub.Args = c.args); an agent that reuses it after review_pending changes what the
// approved order's record (and, for a broker server's profile tool, what is forwarded) says.
func TestDetachedApprovalRecordsTheReviewedArgs(t *testing.T) {
	f := enginetest.New(t)
	a := &argsAgent{}
	runDetached(t, f, a)
	waitFor(t, func() bool { a.mu.Lock(); defer a.mu.Unlock(); return len(a.got) == 1 && f.Engine.Awaiting() == 1 })
	a.mu.Lock()
	id := a.got[0].ApprovalID
	a.mu.Unlock()
	f.DB.Resolve(context.Background(), id, store.ApprovalApproved, "operator", "")
	waitFor(t, func() bool { return f.Engine.Awaiting() == 0 })
	for _, e := range f.Events() {
		if e.Type == live.KindOrderPlaced && e.ApprovalID == id && strings.Contains(e.Payload, `"symbol":"MSFT"`) {
			t.Errorf("approved review %s (buy $6000 AAPL) placed with a record whose request says MSFT: the detached wait aliases the agent's args", id)
		}
	}
}

// TestIdenticalOrderNotQueuedTwice: while a card waits, the same order again (same digest)
// must not become a second card a human can approve too (one intent, two placements).
func TestIdenticalOrderNotQueuedTwice(t *testing.T) {
	f := enginetest.New(t)
	a := &scriptAgent{orders: []map[string]any{enginetest.Buy("AAPL", "6000"), enginetest.Buy("AAPL", "6000")}}
	runDetached(t, f, a)
	waitFor(t, func() bool { return len(a.results()) == 2 })
	if ids := pendingIDs(t, f); len(ids) != 1 {
		t.Errorf("pending cards for one and the same order: %d, want 1", len(ids))
	}
}
