package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/money"
)

// TestLargestNotional is issue 11 item 4: the day's largest order comes from the typed
// notional column of order events, whatever their summary text says.
func TestLargestNotional(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "cockpit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	day := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	amt := func(s string) *money.Amount { a := money.MustParse(s); return &a }
	recs := []live.AuditRecord{
		{Time: day.Add(-time.Hour), Kind: live.KindOrderPlaced, Broker: "paper", Notional: amt("9000"), Intent: "yesterday"},
		{Time: day.Add(time.Hour), Kind: live.KindOrderPlaced, Broker: "paper", Notional: amt("1500.25"), Intent: "no dollars here"},
		{Time: day.Add(2 * time.Hour), Kind: live.KindOrderPlaced, Broker: "paper", Notional: amt("900"), Intent: "buy $99999 AAPL"},
		{Time: day.Add(2 * time.Hour), Kind: live.KindOrderPlaced, Broker: "alpaca", Notional: amt("7000")},
		{Time: day.Add(3 * time.Hour), Kind: live.KindBreach, Broker: "paper", Notional: amt("8000")},
		{Time: day.Add(3 * time.Hour), Kind: live.KindOrderRejected, Broker: "paper", Notional: amt("6000")},
		{Time: day.Add(4 * time.Hour), Kind: live.KindOrderPlaced, Broker: "paper"},
	}
	for _, r := range recs {
		if err := db.Record(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.LargestNotional(ctx, "paper", day)
	if err != nil {
		t.Fatal(err)
	}
	if want := money.MustParse("1500.25"); got.Cmp(want) != 0 {
		t.Errorf("LargestNotional = %s, want %s", got, want)
	}
	if got, _ := db.LargestNotional(ctx, "ibkr", day); got.Sign() != 0 {
		t.Errorf("LargestNotional(no orders) = %s, want 0", got)
	}
	if rep, err := db.Verify(ctx, nil); err != nil || !rep.OK() {
		t.Errorf("the chain does not verify with the notional column: %v %+v", err, rep.Break)
	}
}
