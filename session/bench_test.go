package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/money"
	"cockpit/store"
)

// BenchmarkScreenSnapshot measures the screen's one-second read of a running session: the
// sentinels, the mandate, the day's count, the paper broker (500 resting orders, 6 positions,
// quotes), 50 pending review items and the audit tail, on a database of
// $COCKPIT_BENCH_EVENTS events (default 100,000; the closing note reports 1,000,000).
func BenchmarkScreenSnapshot(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("COCKPIT_BENCH_EVENTS")); err == nil && v > 0 {
		n = v
	}
	home := b.TempDir()
	os.WriteFile(filepath.Join(home, "config.toml"), []byte("[paper]\ncash = \"1000000000\"\n"), 0o600)
	db, err := store.Open(filepath.Join(home, "cockpit.db"))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	start := time.Now().Add(-time.Duration(n) * time.Millisecond)
	for done := 0; done < n; done += 20000 {
		evs := make([]store.Event, min(20000, n-done))
		for i := range evs {
			k := done + i
			evs[i] = store.Event{Time: start.Add(time.Duration(k) * time.Millisecond), ActorKind: "agent", ActorID: "strategy",
				Type: []string{"order_placed", "breach", "tool_call", "order_rejected"}[k%4], Outcome: "accepted", Broker: "paper",
				Summary: fmt.Sprintf("buy $%d AAPL (equity)", 100+k%900), Payload: `{"intent":"x"}`}
		}
		if _, err := db.AppendBatch(ctx, evs); err != nil {
			b.Fatal(err)
		}
	}
	now := time.Now()
	for i := 0; i < 50; i++ {
		db.CreateApproval(ctx, store.Approval{ID: fmt.Sprintf("ap_%03d", i), Broker: "paper", OrderJSON: `{"side":"buy","symbol":"AAPL"}`,
			Digest: "d", Why: "breach", Limit: "max_order_notional_usd", CreatedAt: now, Deadline: now.Add(time.Hour)})
	}
	db.Close()
	s, err := Open(testOptions(home))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for i := 0; i < 50; i++ { // openSession voids pending items of an earlier run: add them back
		s.rt.DB.CreateApproval(ctx, store.Approval{ID: fmt.Sprintf("ap_new_%03d", i), Broker: "paper", OrderJSON: `{"side":"buy"}`,
			Digest: "d", CreatedAt: now, Deadline: now.Add(time.Hour)})
	}
	syms := s.paper.Market().Symbols()
	for i := 0; i < 500; i++ {
		q, _ := s.paper.Quote(ctx, syms[i%len(syms)])
		px := q.Bid.Mul(money.MustParse("0.5")).Round(2)
		one := money.FromInt(1)
		if _, err := s.paper.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: fmt.Sprintf("bench%d", i), Symbol: syms[i%len(syms)],
			Side: live.Buy, Type: live.Limit, Quantity: &one, LimitPrice: &px}); err != nil {
			b.Fatal(err)
		}
	}
	for _, sym := range syms {
		one := money.FromInt(1)
		s.paper.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "pos" + sym, Symbol: sym, Side: live.Buy, Type: live.Market, Quantity: &one})
	}
	be := newBackend(s)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		snap := be.Snapshot(ctx)
		if len(snap.Orders) != 500 || len(snap.Reviews) < 50 || len(snap.Audit) == 0 || snap.BrokerErr != "" {
			b.Fatalf("orders %d reviews %d audit %d err %q", len(snap.Orders), len(snap.Reviews), len(snap.Audit), snap.BrokerErr)
		}
	}
}
