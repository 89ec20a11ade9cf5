package supervise

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/livetest"
	"cockpit/live/money"
	"cockpit/session"
	"cockpit/store"
)

// benchRoot is a paper root whose committed mandate allows many orders a day (the default's
// 40 would end a benchmark of real cancels).
func benchRoot(b *testing.B) string {
	home := b.TempDir()
	db, err := store.Open(filepath.Join(home, "cockpit.db"))
	if err != nil {
		b.Fatal(err)
	}
	livetest.CommitTo(b, db, live.Root(home), "paper", strings.Replace(livetest.MandateDoc, `"max_trades_per_day": 20`, `"max_trades_per_day": 1000000`, 1), time.Now())
	db.Close()
	return home
}

// report adds the p50 and p99 of ds in milliseconds.
func report(b *testing.B, name string, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	at := func(q float64) float64 {
		return float64(ds[min(len(ds)-1, int(q*float64(len(ds))))].Microseconds()) / 1000
	}
	b.ReportMetric(at(0.50), name+"-p50-ms")
	b.ReportMetric(at(0.99), name+"-p99-ms")
}

// BenchmarkOwnerEventToSupervisor: the delay from an audit event the owner commits (a block or
// unblock from its screen) to the supervisor's Snapshot showing it, the supervisor polling
// back to back. A supervising screen polls every 250 ms (cmd/cockpit's supervisePoll), which adds
// up to that much.
func BenchmarkOwnerEventToSupervisor(b *testing.B) {
	home := benchRoot(b)
	s, _ := owner(b, home)
	sup := supervisor(b, home)
	ctx := session.WithOperator(context.Background(), "tui:bench")
	ob := s.Backend()
	var mu sync.Mutex
	seen := map[int64]time.Time{}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // the supervisor's screen, polling back to back
		defer close(done)
		last := int64(0)
		for {
			select {
			case <-stop:
				return
			default:
			}
			snap := sup.Snapshot(context.Background())
			now := time.Now()
			if len(snap.Audit) > 0 && snap.Audit[0].Seq > last {
				mu.Lock()
				for _, r := range snap.Audit {
					if r.Seq > last {
						seen[r.Seq] = now
					}
				}
				mu.Unlock()
				last = snap.Audit[0].Seq
			}
		}
	}()
	wrote := make(map[int64]time.Time, b.N)
	b.ResetTimer()
	for i := range b.N {
		var err error
		if i%2 == 0 {
			err = ob.Block(ctx, "AAPL", "bench")
		} else {
			err = ob.Unblock(ctx, "AAPL", "bench")
		}
		t0 := time.Now()
		if err != nil {
			b.Fatal(err)
		}
		seq, _ := s.Runtime().DB.LastSeq(ctx)
		wrote[seq] = t0
		for { // wait for it to be seen, so each event is measured alone
			mu.Lock()
			_, ok := seen[seq]
			mu.Unlock()
			if ok {
				break
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
	b.StopTimer()
	close(stop)
	<-done
	var ds []time.Duration
	for seq, t0 := range wrote {
		ds = append(ds, max(0, seen[seq].Sub(t0)))
	}
	report(b, "event-to-snapshot", ds)
}

// BenchmarkSupervisorSnapshot: one supervisor Snapshot on an owned root (sentinels, mandate,
// the store's counts and reviews, the live state, the incremental audit tail).
func BenchmarkSupervisorSnapshot(b *testing.B) {
	home := benchRoot(b)
	owner(b, home)
	sup := supervisor(b, home)
	ctx := context.Background()
	sup.Snapshot(ctx)
	b.ResetTimer()
	for range b.N {
		sup.Snapshot(ctx)
	}
}

// BenchmarkCommandCancel: the command round trip: the supervisor queues a cancel of a resting
// order, the owner claims it (it polls every 100 ms) and cancels it through its gate, the
// supervisor reads the result.
func BenchmarkCommandCancel(b *testing.B) {
	home := benchRoot(b)
	s, _ := owner(b, home)
	sup := supervisor(b, home)
	ctx := session.WithOperator(context.Background(), "tui:bench")
	for {
		if _, alive, _ := sup.Owner(ctx); alive {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		id := restingOrder(b, s, i)
		b.StartTimer()
		t0 := time.Now()
		if err := sup.Cancel(ctx, id); err != nil {
			b.Fatalf("cancel %s: %v", id, err)
		}
		ds = append(ds, time.Since(t0))
	}
	b.StopTimer()
	report(b, "cancel-round-trip", ds)
}

// restingOrder places a buy limit under the market through the owner's engine and returns its
// broker id.
func restingOrder(b *testing.B, s *session.Session, i int) string {
	ctx := context.Background()
	q, err := s.Broker().Quote(ctx, "MSFT")
	if err != nil {
		b.Fatal(err)
	}
	limit := q.Bid.Mul(money.MustParse("0.996")).Round(2)
	r := s.Engine().NewTurn("bench").Call(ctx, "place_order", map[string]any{"symbol": "MSFT", "side": "buy",
		"quantity": fmt.Sprint(1 + i%7), "type": "limit", "limit_price": limit.String(), "reason": "bench"})
	if !r.OK() {
		b.Fatalf("resting order: %+v", r)
	}
	open, err := s.Broker().OpenOrders(ctx)
	if err != nil || len(open) != 1 {
		b.Fatalf("open orders %d %v", len(open), err)
	}
	return open[0].ID
}

// BenchmarkOwnerOrderToSupervisor: the delay from an order the owner's agent placed (the call
// returned) to the supervisor's Snapshot listing it among the open orders, through the owner's
// live state (published OrderPublishDelay after the order event), the supervisor polling back
// to back.
func BenchmarkOwnerOrderToSupervisor(b *testing.B) {
	home := benchRoot(b)
	s, _ := owner(b, home)
	sup := supervisor(b, home)
	ctx := context.Background()
	for len(sup.Snapshot(ctx).Quotes) == 0 { // attached: the owner publishes for a watcher from its next beat
		time.Sleep(10 * time.Millisecond)
	}
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		id := restingOrder(b, s, i)
		t0 := time.Now()
		for !hasOrder(sup.Snapshot(ctx).Orders, id) {
		}
		ds = append(ds, time.Since(t0))
		b.StopTimer()
		if err := s.Backend().Cancel(ctx, id); err != nil {
			b.Fatal(err)
		}
		for hasOrder(sup.Snapshot(ctx).Orders, id) {
			time.Sleep(time.Millisecond)
		}
		b.StartTimer()
	}
	b.StopTimer()
	report(b, "order-to-snapshot", ds)
}

func hasOrder(orders []live.Order, id string) bool {
	for _, o := range orders {
		if o.ID == id {
			return true
		}
	}
	return false
}
