package session

import (
	"context"
	"testing"

	"cockpit/live"
	"cockpit/store"
)

// TestSessionRecordsFills: a paper order that fills is a fill event in the trail, once, with
// its price and quantity, and the day's trades list it.
func TestSessionRecordsFills(t *testing.T) {
	home := t.TempDir()
	s, err := Open(testOptions(home))
	if err != nil {
		t.Fatal(err)
	}
	d := s.buy(t)
	if d.Order == nil || d.Order.Status != live.StatusFilled {
		t.Fatalf("the paper buy: %s %s %+v; want filled", d.Verdict, d.Reason, d.Order)
	}
	db := s.rt.DB
	s.Close() // waits for the fills delivered so far
	db, err = store.Open(db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	evs, err := db.Events(ctx, store.Filter{Type: live.KindFill})
	if err != nil || len(evs) != 1 {
		t.Fatalf("fill events = %d, %v; want 1", len(evs), err)
	}
	if e := evs[0]; e.Broker != "paper" || e.OrderID != d.Order.ID || e.ClientOrderID != d.ClientOrderID || e.ActorKind != string(live.ActorSystem) {
		t.Errorf("fill event = %+v, want paper's, order %s / %s", e, d.Order.ID, d.ClientOrderID)
	}
	day, err := db.DayTrades(ctx, evs[0].Time, "paper")
	if err != nil || len(day.Trades) != 1 {
		t.Fatalf("day's trades = %+v, %v; want the fill", day, err)
	}
	tr := day.Trades[0]
	if tr.Symbol != "AAPL" || tr.Side != live.Buy || tr.Qty.Cmp(d.Order.FilledQty) != 0 || tr.Price.Cmp(d.Order.AvgFillPrice) != 0 || tr.State != store.FillApplied {
		t.Errorf("trade = %+v, want the order's fill %s @ %s", tr, d.Order.FilledQty, d.Order.AvgFillPrice)
	}
}

// TestFillNotRecordedHalts: a fill the trail refuses trips HALTED audit_unavailable (DV15), as
// any audit record that cannot be written does.
func TestFillNotRecordedHalts(t *testing.T) {
	home := t.TempDir()
	s, err := Open(testOptions(home))
	if err != nil {
		t.Fatal(err)
	}
	sqlExec(t, home, `CREATE TRIGGER no_fills BEFORE INSERT ON fills BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END;`)
	d := s.buy(t)
	s.Close()
	if d.Order == nil || d.Order.Status != live.StatusFilled {
		t.Fatalf("the paper buy: %s %s; want filled", d.Verdict, d.Reason)
	}
	h, latched := s.gate.Latched()
	if !latched || h.Reason != live.ReasonAuditUnavailable {
		t.Fatalf("latch = %+v %v, want audit_unavailable", h, latched)
	}
}
