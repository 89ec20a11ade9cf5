package session

import (
	"context"
	"testing"

	"cockpit/live"
	"cockpit/live/money"
)

// TestSnapshotPnL (issue 12): the snapshot keeps the equity of the session's first read and
// the realised P&L of a position already closed (the broker no longer lists it).
func TestSnapshotPnL(t *testing.T) {
	s, err := Open(testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.paper == nil {
		t.Skip("the test session has no paper broker")
	}
	ctx := context.Background()
	b := s.Backend()
	first := b.Snapshot(ctx)
	if first.StartEquity.Cmp(first.Account.Equity) != 0 {
		t.Fatalf("start equity %s, want the first read's %s", first.StartEquity, first.Account.Equity)
	}
	ten := money.MustParse("10")
	for i, side := range []string{live.Buy, live.Sell} {
		if _, err := s.paper.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "pnl" + side, Symbol: "AAPL", Side: side, Type: live.Market, Quantity: &ten}); err != nil {
			t.Fatalf("order %d: %v", i, err)
		}
	}
	snap := b.Snapshot(ctx)
	if snap.StartEquity.Cmp(first.StartEquity) != 0 {
		t.Errorf("start equity moved: got %s, want %s", snap.StartEquity, first.StartEquity)
	}
	if len(snap.Positions) != 0 {
		t.Fatalf("got positions %v, want none (closed)", snap.Positions)
	}
	if snap.Realized.Sign() == 0 {
		t.Errorf("realised P&L of the closed round trip is 0, want the spread paid")
	}
	if got := snap.Account.Equity.Sub(snap.StartEquity); got.Cmp(snap.Realized) != 0 {
		t.Errorf("equity delta %s, want the realised %s (nothing open)", got, snap.Realized)
	}
}
