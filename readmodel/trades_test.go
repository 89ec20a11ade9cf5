package readmodel_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/livetest"
	"cockpit/live/money"
	"cockpit/readmodel"
	"cockpit/store"
)

// TestSnapshotHasTheDaysTrades (issue 29 §3): the snapshot carries the UTC day's fills of its
// broker and their round trips (store.DayTrades, what `cockpit trades` reads); a new fill is
// in the next snapshot, another broker's fills are not, and a new day starts empty.
func TestSnapshotHasTheDaysTrades(t *testing.T) {
	clock := livetest.NewClock(livetest.Epoch)
	db, err := store.Open(filepath.Join(t.TempDir(), "cockpit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.Now = clock.Now
	root := livetest.Root(t)
	r := &readmodel.Reader{Root: root, Broker: live.PaperBroker, Now: clock.Now, DB: db}
	ctx := context.Background()
	fill := func(broker, id, side, qty, px string) {
		t.Helper()
		q, p := money.MustParse(qty), money.MustParse(px)
		o := live.Order{ID: id, ClientOrderID: "c-" + id, Symbol: "AAPL", Side: side, Status: live.StatusFilled, FilledQty: q, AvgFillPrice: p}
		rec := &live.FillRecorder{Broker: broker, Audit: db, Ledger: db, Session: "s1"}
		if _, ok, err := rec.Observe(ctx, live.OrderUpdate{Order: o, FillQty: q, FillPx: p, Time: clock.Now()}); err != nil || !ok {
			t.Fatalf("fill %s: recorded %v, %v", id, ok, err)
		}
	}
	if s := r.Snapshot(ctx); len(s.Trades.Trades) != 0 || s.TradesErr != "" {
		t.Fatalf("no fills yet: %d trades (%s)", len(s.Trades.Trades), s.TradesErr)
	}
	fill(live.PaperBroker, "o1", "buy", "10", "100")
	fill("alpaca", "o9", "buy", "1", "100")
	clock.Advance(time.Minute)
	fill(live.PaperBroker, "o2", "sell", "10", "101.5")
	s := r.Snapshot(ctx)
	if got := len(s.Trades.Trades); got != 2 {
		t.Fatalf("snapshot trades = %d, want paper's 2", got)
	}
	if got, want := s.Trades.Realized, money.MustParse("15"); got.Cmp(want) != 0 || len(s.Trades.Trips) != 1 {
		t.Errorf("realised %s over %d trips, want 15 over 1", got, len(s.Trades.Trips))
	}
	want, err := db.DayTrades(ctx, clock.Now(), live.PaperBroker)
	if err != nil || len(want.Trades) != len(s.Trades.Trades) || want.Realized.Cmp(s.Trades.Realized) != 0 {
		t.Errorf("snapshot's trades differ from store.DayTrades: %+v vs %+v (%v)", s.Trades, want, err)
	}
	clock.Advance(24 * time.Hour)
	if s := r.Snapshot(ctx); len(s.Trades.Trades) != 0 {
		t.Errorf("the next day shows %d of the last day's fills", len(s.Trades.Trades))
	}
}
