package fleet_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cockpit/fleet"
	"cockpit/live"
	"cockpit/live/auditsink"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/livetest"
	"cockpit/live/money"
	"cockpit/live/paper"
)

// percentiles reports p50 and p99 of the samples as metrics.
func percentiles(b *testing.B, samples []time.Duration, unit string) {
	if len(samples) == 0 {
		return
	}
	slices.Sort(samples)
	at := func(q float64) float64 {
		return float64(samples[min(len(samples)-1, int(q*float64(len(samples))))].Microseconds())
	}
	b.ReportMetric(at(0.50), "p50-µs"+unit)
	b.ReportMetric(at(0.99), "p99-µs"+unit)
}

// BenchmarkReserveRoundTrip: one Reserve (a read and a CAS write) on a loopback server.
func BenchmarkReserveRoundTrip(b *testing.B) {
	ns := serve(b)
	d := &fleet.Days{F: connect(b, ns, "h1")}
	ctx := context.Background()
	if _, err := d.Reserve(ctx, "paper", "2026-06-01"); err != nil { // the bucket exists
		b.Fatal(err)
	}
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if _, err := d.Reserve(ctx, "paper", "2026-06-01"); err != nil {
			b.Fatal(err)
		}
		samples = append(samples, time.Since(start))
	}
	b.StopTimer()
	percentiles(b, samples, "")
}

// BenchmarkHaltPropagation: a HALT file written on host 1 until host 2's HALT file is
// written by its mirror (host 1's watcher through fsnotify, the bucket, host 2's watch);
// then the same for the resume. Each op is one trip or one resume.
func BenchmarkHaltPropagation(b *testing.B) {
	ns := serve(b)
	a := &host{f: connect(b, ns, "h1"), root: livetest.Root(b), key: "paper"}
	c := &host{f: connect(b, ns, "h2"), root: livetest.Root(b), key: "paper"}
	mirrored(b, a)
	_, ev := mirrored(b, c)
	time.Sleep(200 * time.Millisecond)
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		halted := i%2 == 0
		start := time.Now()
		var err error
		if halted {
			_, err = halt.Trip(a.root, live.HaltSentinel, live.GlobalScope, "bench", "x", start)
		} else {
			_, err = halt.Clear(a.root, live.HaltSentinel, live.GlobalScope)
		}
		if err != nil {
			b.Fatal(err)
		}
		select {
		case e := <-ev:
			if e.Halted != halted {
				b.Fatalf("op %d: got halted=%v", i, e.Halted)
			}
		case <-time.After(10 * time.Second):
			b.Fatalf("op %d: host 2 never saw it", i)
		}
		samples = append(samples, time.Since(start))
	}
	b.StopTimer()
	percentiles(b, samples, "")
}

// BenchmarkHaltBucketToFile: a halt put in the bucket by host 1 until host 2's mirror has
// written its HALT file (the fleet's share of the propagation, without host 1's own file
// and watcher).
func BenchmarkHaltBucketToFile(b *testing.B) {
	ns := serve(b)
	a := connect(b, ns, "h1")
	c := &host{f: connect(b, ns, "h2"), root: livetest.Root(b), key: "paper"}
	_, ev := mirrored(b, c)
	time.Sleep(200 * time.Millisecond)
	ctx := context.Background()
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		halted := i%2 == 0
		start := time.Now()
		if err := a.PublishHalt(ctx, live.GlobalScope, fleet.HaltValue{Halted: halted, By: "bench", At: start}); err != nil {
			b.Fatal(err)
		}
		select {
		case e := <-ev:
			if e.Halted != halted {
				b.Fatalf("op %d: got halted=%v", i, e.Halted)
			}
		case <-time.After(10 * time.Second):
			b.Fatalf("op %d: host 2 never saw it", i)
		}
		samples = append(samples, time.Since(start))
	}
	b.StopTimer()
	percentiles(b, samples, "")
}

// BenchmarkFleetOrders4Hosts: four hosts (own roots, journals, paper brokers and gates)
// sending orders through the gate against one embedded server; orders/s over all four, and
// the same four gates without a fleet (local-only) for comparison.
func BenchmarkFleetOrders4Hosts(b *testing.B) {
	b.Run("fleet", func(b *testing.B) { benchOrders(b, true) })
	b.Run("local-only", func(b *testing.B) { benchOrders(b, false) })
}

func benchOrders(b *testing.B, withFleet bool) {
	ns := serve(b)
	doc := strings.Replace(livetest.MandateDoc, `"max_trades_per_day": 20`, `"max_trades_per_day": 1000000`, 1)
	hosts := make([]*host, 4)
	for i := range hosts {
		f := connect(b, ns, fmt.Sprintf("h%d", i+1))
		clock := livetest.NewClock(livetest.Epoch)
		root := livetest.Root(b)
		livetest.Commit(b, root, "paper", doc, clock.Now())
		p, err := paper.New(paper.Config{Market: paper.MarketConfig{Seed: 1, Symbols: paper.DefaultSymbols()}, Now: clock.Now})
		if err != nil {
			b.Fatal(err)
		}
		h := &host{name: f.Host(), root: root, broker: &counted{Broker: p}, key: "paper", f: f, days: &fleet.Days{F: f}}
		h.gate = &gate.Gate{Root: root, Now: clock.Now, Audit: &auditsink.Memory{}, Journal: &live.MemoryJournal{},
			Mandates: livetest.Ledger(root), Days: h.days}
		if withFleet {
			h.gate.Days = timed{h.days, &reserveTime}
		} else {
			h.gate.Days = nil
		}
		hosts[i] = h
	}
	n := money.MustParse("100")
	var wg sync.WaitGroup
	var bad sync.Map
	b.ResetTimer()
	start := time.Now()
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := i; j < b.N; j += len(hosts) {
				side := live.Buy
				if (j/len(hosts))%2 == 1 { // alternate, so exposure stays flat
					side = live.Sell
				}
				in := live.OrderIntent{Symbol: "AAPL", Side: side, InstrumentType: live.Equity, NotionalUSD: &n}
				d := h.gate.Submit(context.Background(), gate.Submission{Broker: h.broker, BrokerKey: h.key, Intent: &in,
					Actor: live.Agent("bench", h.name)})
				if d.Outcome != live.OutcomeAccepted {
					bad.Store(j, d.Message())
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	bad.Range(func(k, v any) bool { b.Fatalf("order %v: %v", k, v); return false })
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "orders/s")
	if reserveTime.n > 0 {
		b.ReportMetric(float64(reserveTime.d.Microseconds())/float64(reserveTime.n), "µs-reserve/order")
		reserveTime = timeSum{}
	}
}

var reserveTime timeSum

type timeSum struct {
	mu sync.Mutex
	d  time.Duration
	n  int
}

// timed measures the time orders spend reserving.
type timed struct {
	*fleet.Days
	sum *timeSum
}

func (t timed) ReserveSlot(ctx context.Context, broker, day string, limit int) (int, func(context.Context) error, error) {
	start := time.Now()
	n, give, err := t.Days.ReserveSlot(ctx, broker, day, limit)
	t.sum.mu.Lock()
	t.sum.d += time.Since(start)
	t.sum.n++
	t.sum.mu.Unlock()
	return n, give, err
}

func (t timed) Reserve(ctx context.Context, broker, day string) (int, error) {
	start := time.Now()
	n, err := t.Days.Reserve(ctx, broker, day)
	t.sum.mu.Lock()
	t.sum.d += time.Since(start)
	t.sum.n++
	t.sum.mu.Unlock()
	return n, err
}
