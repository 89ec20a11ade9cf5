package engine_test

import (
	"context"
	"strings"
	"testing"

	"cockpit/engine"
	"cockpit/internal/enginetest"
	"cockpit/live"
	"cockpit/live/counter"
	"cockpit/store"
)

// capsDoc is a mandate with a 5,000 order cap, max_trades_per_day trades and floor as the
// market-cap floor ("null" for none).
func capsDoc(trades, floor string) string {
	return `{"hard_caps": {"account_funding_usd": 100000, "max_order_notional_usd": 5000,
 "max_total_exposure_usd": 100000, "max_leverage": 1, "allowed_instruments": ["equity", "etf"], "max_trades_per_day": ` + trades + `},
 "universe": {"asset_classes": ["us_equity", "us_etf"], "min_market_cap_usd": ` + floor + `, "min_avg_daily_volume_usd": null, "exclude_symbols": []}}`
}

func useTrades(t *testing.T, f *enginetest.Fixture, n int) {
	t.Helper()
	for range n {
		if _, err := counter.IncrementDailyCount(f.Root, live.PaperBroker, f.Clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestApprovalCoversEveryBreachShown is issue 10 item 7: at 2/2 trades a 6,000 order breaches
// the order cap and the day's count; the card lists both, and approving it sends the order.
func TestApprovalCoversEveryBreachShown(t *testing.T) {
	f := enginetest.New(t, enginetest.WithMandate(capsDoc("2", "null")))
	useTrades(t, f, 2)
	var card store.Approval
	done := f.Human(func(a store.Approval) {
		card = a
		f.Resolve(store.ApprovalApproved, "")(a)
	})
	r := f.Call("place_order", enginetest.Buy("AAPL", "6000"))
	<-done
	for _, want := range []string{live.LimitOrderNotional, live.LimitTradesPerDay} {
		if !strings.Contains(card.Detail, want) {
			t.Errorf("card detail %q does not show %s", card.Detail, want)
		}
	}
	if r.Status != engine.StatusOK || f.Placed() != 1 {
		t.Fatalf("got %s %s (%s), %d forwards; want the approved order sent", r.Status, r.Code, r.Detail, f.Placed())
	}
	a, err := f.DB.Approval(context.Background(), r.ApprovalID)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Breaches) != 2 || a.Breaches[0].Limit != live.LimitOrderNotional || a.Breaches[1].Limit != live.LimitTradesPerDay {
		t.Errorf("stored breaches = %+v, want the order cap then the day's count", a.Breaches)
	}
	if !strings.HasPrefix(a.Outcome, live.OutcomeSent) {
		t.Errorf("outcome = %q, want sent", a.Outcome)
	}
}

// TestApprovalThatDoesNotGoThroughSaysWhy: the re-check finds a breach the card did not show
// (another order used the last trade while the human read); the order is not sent, and the
// review's outcome (stored and published) says so and why.
func TestApprovalThatDoesNotGoThroughSaysWhy(t *testing.T) {
	f := enginetest.New(t, enginetest.WithMandate(capsDoc("2", "null")))
	useTrades(t, f, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := f.Engine.Bus.Subscribe(ctx, 256)
	done := f.Human(func(a store.Approval) {
		useTrades(t, f, 1)
		f.Resolve(store.ApprovalApproved, "")(a)
	})
	r := f.Call("place_order", enginetest.Buy("AAPL", "6000"))
	<-done
	if r.Code != "approval_does_not_cover:max_trades_per_day" || f.Placed() != 0 {
		t.Fatalf("got %s %s, %d forwards", r.Code, r.Detail, f.Placed())
	}
	want := "approval did not go through: max_trades_per_day 2/2 used today"
	a, _ := f.DB.Approval(context.Background(), r.ApprovalID)
	if !strings.HasPrefix(a.Outcome, want) {
		t.Errorf("stored outcome = %q, want %q…", a.Outcome, want)
	}
	cancel()
	var got string
	for ev := range events {
		if ev.Kind == engine.EvReviewOutcome && ev.Review != nil {
			got = ev.Review.Outcome
		}
	}
	if !strings.HasPrefix(got, want) {
		t.Errorf("published outcome = %q, want %q…", got, want)
	}
}

// TestNoReviewForAnUnwaivableBreach: behind the order cap the order breaches a structural
// limit (a market-cap floor with no data); no approval could send it, so nobody is asked.
func TestNoReviewForAnUnwaivableBreach(t *testing.T) {
	f := enginetest.New(t, enginetest.WithMandate(capsDoc("40", "1000000")))
	f.Human(f.Resolve(store.ApprovalApproved, "")) // answers at once if anyone is asked
	r := f.Call("place_order", enginetest.Buy("AAPL", "6000"))
	if r.Code != "approval_cannot_cover:min_market_cap_usd" || f.Placed() != 0 {
		t.Errorf("got %s %s, %d forwards; want approval_cannot_cover:min_market_cap_usd", r.Code, r.Detail, f.Placed())
	}
	if items, _ := f.DB.Approvals(context.Background(), "", 10); len(items) != 0 {
		t.Errorf("review items = %d, want none", len(items))
	}
}
