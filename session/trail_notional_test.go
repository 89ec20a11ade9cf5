package session

import (
	"context"
	"strings"
	"testing"

	"cockpit/live/money"
)

// TestTrailNamesTheCheckedNotional (issue 28 §4): a resting limit order's trail carries the
// notional the gate checked and its basis (the quote), which the order details show beside the
// Orders pane's own notional at the limit price, each labelled.
func TestTrailNamesTheCheckedNotional(t *testing.T) {
	s, err := Open(testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	q, err := s.broker.Quote(ctx, "AAPL")
	if err != nil {
		t.Fatal(err)
	}
	limit := q.Bid.Mul(money.MustParse("0.997")).Round(2) // below the bid, inside the 50 bps collar: it rests
	r := s.eng.NewTurn("strategy").Call(ctx, "place_order", map[string]any{"symbol": "AAPL", "side": "buy", "quantity": "2",
		"type": "limit", "limit_price": limit.String(), "reason": "rest"})
	if !r.OK() {
		t.Fatalf("place_order: %+v", r)
	}
	snap := s.Backend().Snapshot(ctx)
	if len(snap.Orders) != 1 {
		t.Fatalf("%d resting orders, want 1", len(snap.Orders))
	}
	tr := snap.Trails[snap.Orders[0].ClientOrderID]
	if tr.CheckedBasis == "" || tr.Checked == "" || strings.HasPrefix(tr.Checked, limit.Mul(money.MustParse("2")).String()) {
		t.Errorf("trail checked %q on %q, want the gate's notional at its basis (not the limit's %s)", tr.Checked, tr.CheckedBasis, limit.Mul(money.MustParse("2")))
	}
}
