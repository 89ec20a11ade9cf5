package gate_test

import (
	"context"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/auditsink"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/livetest"
	"cockpit/live/money"
	"cockpit/live/paper"
)

// reportLatency adds p50/p99 (µs) and a rate to a benchmark from per-op samples.
func reportLatency(b *testing.B, samples []time.Duration, unit string) {
	if len(samples) == 0 {
		return
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	pick := func(q float64) float64 { return float64(samples[int(q*float64(len(samples)-1))].Microseconds()) }
	b.ReportMetric(pick(0.50), "p50-µs")
	b.ReportMetric(pick(0.99), "p99-µs")
	if unit == "" {
		return
	}
	var total time.Duration
	for _, s := range samples {
		total += s
	}
	b.ReportMetric(float64(len(samples))/total.Seconds(), unit)
}

func benchGate(b *testing.B, notional string) { benchGateWait(b, notional, 0) }

func benchGateWait(b *testing.B, notional string, wait time.Duration) {
	root := livetest.Root(b)
	doc := strings.Replace(livetest.MandateDoc, `"max_trades_per_day": 20`, `"max_trades_per_day": 1000000`, 1)
	doc = strings.Replace(doc, `"max_total_exposure_usd": 100000`, `"max_total_exposure_usd": 1000000000`, 1)
	doc = strings.Replace(doc, `"account_funding_usd": 100000`, `"account_funding_usd": 1000000000`, 1)
	livetest.Commit(b, root, "paper", doc, time.Now())
	p, err := paper.New(paper.Config{Market: paper.MarketConfig{Seed: 1, Symbols: paper.DefaultSymbols()}, Cash: money.MustParse("1e12")})
	if err != nil {
		b.Fatal(err)
	}
	g := &gate.Gate{Root: root, Audit: &auditsink.Memory{}, Journal: &live.MemoryJournal{}, Mandates: livetest.Ledger(root), LockWait: wait}
	ctx := context.Background()
	in := live.OrderIntent{Symbol: "SPY", Side: live.Buy, InstrumentType: live.ETF, NotionalUSD: amt(notional)}
	samples := make([]time.Duration, 0, 4096)
	for b.Loop() {
		start := time.Now()
		d := g.Submit(ctx, gate.Submission{Broker: p, Intent: &in})
		samples = append(samples, time.Since(start))
		if d.Verdict == live.Deny {
			b.Fatalf("unexpected denial: %s", d.Message())
		}
	}
	reportLatency(b, samples, "orders/s")
}

// BenchmarkGateAllow: an in-mandate order through the whole gate to the in-process paper
// broker — lock, journal, forward, fsynced count, audit.
func BenchmarkGateAllow(b *testing.B) { benchGate(b, "100") }

// BenchmarkGateAllowLockWait: the same order with the runtime's LockWait, which takes the
// gate's turn for the broker before the run (the cost of waiting out contention when there is
// none).
func BenchmarkGateAllowLockWait(b *testing.B) { benchGateWait(b, "100", gate.DefaultLockWait) }

// BenchmarkGatePause: an order over the per-order cap, decided under the lock and paused
// (no forward, no count).
func BenchmarkGatePause(b *testing.B) { benchGate(b, "6000") }

// cancelSpy timestamps the first cancel after a mark.
type cancelSpy struct {
	live.Broker
	mu   sync.Mutex
	seen chan time.Time
}

func (c *cancelSpy) CancelOrder(ctx context.Context, id string) error {
	c.mu.Lock()
	ch := c.seen
	c.seen = nil
	c.mu.Unlock()
	if ch != nil {
		ch <- time.Now()
	}
	return c.Broker.CancelOrder(ctx, id)
}

// BenchmarkHaltToFirstCancel: from the HALT file's creation to the broker's first cancel
// call, through the watcher (fsnotify plus poll) and the flatten action.
func BenchmarkHaltToFirstCancel(b *testing.B) {
	root := livetest.Root(b)
	p, err := paper.New(paper.Config{Market: paper.MarketConfig{Seed: 1, Symbols: paper.DefaultSymbols()}})
	if err != nil {
		b.Fatal(err)
	}
	spy := &cancelSpy{Broker: p}
	g := &gate.Gate{Root: root, Audit: &auditsink.Memory{}, Journal: &live.MemoryJournal{}, Mandates: livetest.Ledger(root)}
	actions := &halt.Actions{}
	actions.Register("", func(ctx context.Context, broker string) halt.Result {
		return g.Flatten(ctx, spy, broker, gate.FlattenOptions{Settle: time.Millisecond})
	})
	w := &halt.Watcher{Root: root, Brokers: []string{"paper"}, Actions: actions, Poll: time.Second}
	states := w.Subscribe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.Run(ctx)
	waitFor := func(halted bool) {
		for s := range states {
			if s.Halted == halted {
				return
			}
		}
	}
	waitFor(false)
	low := money.MustParse("1")
	var samples []time.Duration
	for b.Loop() {
		if _, err := p.PlaceOrder(ctx, live.OrderRequest{Symbol: "AAPL", Side: live.Buy, Type: live.Limit, Quantity: amt("1"), LimitPrice: &low}); err != nil {
			b.Fatal(err)
		}
		seen := make(chan time.Time, 1)
		spy.mu.Lock()
		spy.seen = seen
		spy.mu.Unlock()
		start := time.Now()
		if _, err := halt.Trip(root, live.HaltSentinel, live.GlobalScope, "bench", "x", start); err != nil {
			b.Fatal(err)
		}
		select {
		case at := <-seen:
			samples = append(samples, at.Sub(start))
		case <-time.After(5 * time.Second):
			b.Fatal("no cancel within 5s of HALT")
		}
		waitFor(true)
		halt.Clear(root, live.HaltSentinel, live.GlobalScope)
		waitFor(false)
	}
	reportLatency(b, samples, "")
}
