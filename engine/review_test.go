package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"cockpit/engine"
	"cockpit/internal/enginetest"
	"cockpit/live"
	"cockpit/live/counter"
	"cockpit/store"
)

const supervised = "[policy.agents.strategy]\nautonomy = \"supervised\""

// TestReviewOutcomes covers the approval paths: approve (supervised and breach), deny, and
// timeout (case 14), each with a distinct result for the agent and exactly one terminal record.
func TestReviewOutcomes(t *testing.T) {
	tests := []struct {
		name     string
		policy   string
		order    map[string]any
		answer   func(f *enginetest.Fixture) func(store.Approval)
		status   live.CallStatus
		code     live.Reason
		forwards int
		state    store.ApprovalState
	}{
		{"supervised approved", supervised, enginetest.Buy("AAPL", "100"),
			func(f *enginetest.Fixture) func(store.Approval) { return f.Resolve(store.ApprovalApproved, "") },
			engine.StatusOK, "", 1, store.ApprovalApproved},
		{"breach approved", "", enginetest.Buy("AAPL", "6000"),
			func(f *enginetest.Fixture) func(store.Approval) { return f.Resolve(store.ApprovalApproved, "") },
			engine.StatusOK, "", 1, store.ApprovalApproved},
		{"breach denied", "", enginetest.Buy("AAPL", "6000"),
			func(f *enginetest.Fixture) func(store.Approval) { return f.Resolve(store.ApprovalDenied, "too big") },
			engine.StatusDenied, "approval_denied", 0, store.ApprovalDenied},
		{"no answer", "", enginetest.Buy("AAPL", "6000"),
			func(f *enginetest.Fixture) func(store.Approval) {
				return func(store.Approval) { f.Clock.Advance(live.DefaultApprovalTimeout + time.Second) }
			},
			engine.StatusDenied, "approval_timeout", 0, store.ApprovalTimedOut},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []enginetest.Option
			if tt.policy != "" {
				opts = append(opts, enginetest.WithPolicy(tt.policy))
			}
			f := enginetest.New(t, opts...)
			done := f.Human(tt.answer(f))
			r := f.Call("place_order", tt.order)
			<-done
			if r.Status != tt.status || r.Code != tt.code || r.ApprovalID == "" {
				t.Errorf("got %s %q approval %q (%s), want %s %q with an approval id", r.Status, r.Code, r.ApprovalID, r.Detail, tt.status, tt.code)
			}
			if f.Placed() != tt.forwards {
				t.Errorf("forwards = %d, want %d", f.Placed(), tt.forwards)
			}
			a, err := f.DB.Approval(context.Background(), r.ApprovalID)
			if err != nil || a.State != tt.state {
				t.Fatalf("approval %s: %v %v, want %s", r.ApprovalID, a.State, err, tt.state)
			}
			if tt.state != store.ApprovalApproved && a.Consumed {
				t.Error("a grant was minted for an unapproved item")
			}
			if pending, _ := f.Engine.Reviews.PendingReviews(context.Background()); len(pending) != 0 {
				t.Errorf("queue slot not freed: %d pending", len(pending))
			}
			if tt.forwards == 1 {
				var placed store.Event
				for _, e := range f.Events() {
					if e.Type == live.KindOrderPlaced {
						placed = e
					}
				}
				if placed.ApprovalID != r.ApprovalID {
					t.Errorf("order record approval = %q, want %q", placed.ApprovalID, r.ApprovalID)
				}
			}
		})
	}
}

// TestNoApproverDoesNotWait is case 15.
func TestNoApproverDoesNotWait(t *testing.T) {
	f := enginetest.New(t)
	f.Engine.Reviews = nil
	r := f.Call("place_order", enginetest.Buy("AAPL", "6000"))
	if r.Code != "no_approver" {
		t.Errorf("got %+v", r)
	}
	if items, _ := f.DB.Approvals(context.Background(), "", 10); len(items) != 0 {
		t.Errorf("review items created: %d", len(items))
	}
}

// TestGrantSingleUse is case 17: a grant is used once, only for its digest, and never when
// the item timed out.
func TestGrantSingleUse(t *testing.T) {
	f := enginetest.New(t)
	f.CheckTerminal = false
	rv := store.Reviews{DB: f.DB}
	ctx := context.Background()
	mk := func(id string) {
		if err := rv.CreateReview(ctx, live.ReviewItem{ID: id, Broker: "paper", Digest: "A", Created: f.Clock.Now(),
			Deadline: f.Clock.Now().Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	mk("ap1")
	if _, err := rv.ResolveReview(ctx, "ap1", live.ReviewApproved, "op", ""); err != nil {
		t.Fatal(err)
	}
	if err := rv.ConsumeGrant(ctx, "ap1", "B"); err == nil {
		t.Error("grant for digest A used for digest B")
	}
	if err := rv.ConsumeGrant(ctx, "ap1", "A"); err != nil {
		t.Errorf("first use: %v", err)
	}
	if err := rv.ConsumeGrant(ctx, "ap1", "A"); err == nil {
		t.Error("grant replayed")
	}
	mk("ap2")
	f.Clock.Advance(2 * time.Minute)
	it, err := rv.WaitReview(ctx, "ap2", time.Millisecond, f.Clock.Now)
	if err != nil || it.State != live.ReviewTimedOut {
		t.Fatalf("wait: %v %v", it.State, err)
	}
	if _, err := rv.ResolveReview(ctx, "ap2", live.ReviewApproved, "op", "late"); err != nil {
		t.Fatal(err)
	}
	if err := rv.ConsumeGrant(ctx, "ap2", "A"); err == nil {
		t.Error("an expired item's grant was usable")
	}
}

// TestStaleApproval is case 18: the price moved beyond the drift limit between the review
// and the execution.
func TestStaleApproval(t *testing.T) {
	f := enginetest.New(t)
	f.Engine.DriftBps = 50
	done := f.Human(func(a store.Approval) {
		f.Broker.Bps.Store(120) // +1.2 %
		f.Resolve(store.ApprovalApproved, "")(a)
	})
	r := f.Call("place_order", enginetest.Buy("AAPL", "6000"))
	<-done
	if r.Code != "stale_approval" || f.Placed() != 0 {
		t.Errorf("got %+v, %d forwards; want stale_approval and none", r, f.Placed())
	}
}

// TestRepeatedAskAfterDenial is case 19: the same order again within ten minutes gets the
// earlier denial with no new review item.
func TestRepeatedAskAfterDenial(t *testing.T) {
	f := enginetest.New(t)
	done := f.Human(f.Resolve(store.ApprovalDenied, "no"))
	first := f.Call("place_order", enginetest.Buy("AAPL", "6000"))
	<-done
	f.Clock.Advance(5 * time.Minute)
	second := f.Call("place_order", enginetest.Buy("AAPL", "6000"))
	if second.Code != "approval_denied" || second.ApprovalID != first.ApprovalID {
		t.Errorf("second ask: %+v, want the earlier denial %s", second, first.ApprovalID)
	}
	if items, _ := f.DB.Approvals(context.Background(), "", 10); len(items) != 1 {
		t.Errorf("review items = %d, want 1", len(items))
	}
	f.Clock.Advance(6 * time.Minute)
	done = f.Human(f.Resolve(store.ApprovalDenied, "still no"))
	third := f.Call("place_order", enginetest.Buy("AAPL", "6000"))
	<-done
	if third.ApprovalID == first.ApprovalID {
		t.Error("a denial older than ten minutes was reused")
	}
}

// TestQueueFull is case 20: with five items pending the sixth is denied at once.
func TestQueueFull(t *testing.T) {
	f := enginetest.New(t)
	for i := 0; i < 5; i++ {
		if err := f.Engine.Reviews.CreateReview(context.Background(), live.ReviewItem{ID: "other" + string(rune('a'+i)), Broker: "paper",
			Created: f.Clock.Now(), Deadline: f.Clock.Now().Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	if r := f.Call("place_order", enginetest.Buy("AAPL", "6000")); r.Code != "approval_queue_full" {
		t.Errorf("got %+v", r)
	}
}

// TestApprovalCoversOnlyTheShownBreach: an approved order that now breaches another limit
// is not executed.
func TestApprovalCoversOnlyTheShownBreach(t *testing.T) {
	doc := `{"hard_caps": {"account_funding_usd": 100000, "max_order_notional_usd": 5000,
 "max_total_exposure_usd": 100000, "max_leverage": 1, "allowed_instruments": ["equity", "etf"], "max_trades_per_day": 1},
 "universe": {"asset_classes": ["us_equity", "us_etf"], "min_market_cap_usd": null, "min_avg_daily_volume_usd": null, "exclude_symbols": []}}`
	f := enginetest.New(t, enginetest.WithMandate(doc))
	done := f.Human(func(a store.Approval) {
		// Another order uses the day's only trade while the human reads.
		if _, err := counter.IncrementDailyCount(f.Root, live.PaperBroker, f.Clock.Now()); err != nil {
			t.Error(err)
		}
		f.Resolve(store.ApprovalApproved, "")(a)
	})
	r := f.Call("place_order", enginetest.Buy("AAPL", "6000"))
	<-done
	if !strings.HasPrefix(string(r.Code), "approval_does_not_cover:max_trades_per_day") || f.Placed() != 0 {
		t.Errorf("got %+v, %d forwards", r, f.Placed())
	}
}

// TestHaltVoidsWaitingReview: a halt stops the turn; its waiting review is voided, the
// order never goes.
func TestHaltVoidsWaitingReview(t *testing.T) {
	f := enginetest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := f.Human(func(store.Approval) { cancel() })
	r := f.Engine.NewTurn("strategy").Call(ctx, "place_order", enginetest.Buy("AAPL", "6000"))
	<-done
	if r.Code != "approval_voided" || f.Placed() != 0 {
		t.Errorf("got %+v", r)
	}
	a, _ := f.DB.Approval(context.Background(), r.ApprovalID)
	if a.State != store.ApprovalVoided {
		t.Errorf("state = %s", a.State)
	}
}
