package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/livetest"
	"cockpit/live/money"
	"cockpit/live/paper"
)

func percentiles(b *testing.B, samples []time.Duration, rateUnit string) {
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	at := func(q float64) float64 { return float64(samples[int(q*float64(len(samples)-1))].Microseconds()) }
	b.ReportMetric(at(0.5), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
	var total time.Duration
	for _, s := range samples {
		total += s
	}
	b.ReportMetric(float64(len(samples))/total.Seconds(), rateUnit)
}

// BenchmarkAppendDurable: one event per transaction, WAL with synchronous=FULL.
func BenchmarkAppendDurable(b *testing.B) {
	db := mustOpen(b, "")
	ctx := context.Background()
	r := record(1)
	var samples []time.Duration
	for b.Loop() {
		start := time.Now()
		if err := db.Record(ctx, r); err != nil {
			b.Fatal(err)
		}
		samples = append(samples, time.Since(start))
	}
	percentiles(b, samples, "events/s")
}

// BenchmarkOrderCommits: the store's part of one forwarded order and nothing else: the
// write-ahead row (with the audit probe) and, after it, the outcome with its audit record, each
// a durable commit. The durable gate's sequential rate cannot pass this one's.
func BenchmarkOrderCommits(b *testing.B) {
	db := mustOpen(b, filepath.Join(b.TempDir(), "cockpit.db"))
	ctx := context.Background()
	var samples []time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		id := fmt.Sprintf("ck_floor_%d", i)
		e := live.JournalEntry{ClientOrderID: id, Broker: "paper", Actor: live.Agent("strategy", "s1"),
			Request: live.OrderRequest{Symbol: "SPY", Side: live.Buy, Type: live.Market}, Created: start}
		if err := db.BeginProbed(ctx, e); err != nil {
			b.Fatal(err)
		}
		rec := record(i)
		rec.ClientOrderID = id
		if err := db.FinishRecord(ctx, id, live.JournalAccepted, "P"+id, "", start, rec); err != nil {
			b.Fatal(err)
		}
		samples = append(samples, time.Since(start))
	}
	percentiles(b, samples, "orders/s")
}

// BenchmarkGateWithStore: an in-mandate order through the gate to the paper broker with this
// store as audit sink and journal (journal begin + finish, audit event, count).
func BenchmarkGateWithStore(b *testing.B) {
	root := livetest.Root(b)
	db := mustOpen(b, filepath.Join(root.Dir(), "cockpit.db"))
	doc := strings.Replace(livetest.MandateDoc, `"max_trades_per_day": 20`, `"max_trades_per_day": 1000000`, 1)
	doc = strings.Replace(doc, `"max_total_exposure_usd": 100000`, `"max_total_exposure_usd": 1000000000`, 1)
	doc = strings.Replace(doc, `"account_funding_usd": 100000`, `"account_funding_usd": 1000000000`, 1)
	livetest.Commit(b, root, "paper", doc, time.Now())
	p, _ := paper.New(paper.Config{Market: paper.MarketConfig{Seed: 1, Symbols: paper.DefaultSymbols()}, Cash: money.MustParse("1e12")})
	g := &gate.Gate{Root: root, Audit: db, Journal: db, Mandates: livetest.Ledger(root)}
	n := money.MustParse("100")
	in := live.OrderIntent{Symbol: "SPY", Side: live.Buy, InstrumentType: live.ETF, NotionalUSD: &n}
	var samples []time.Duration
	for b.Loop() {
		start := time.Now()
		d := g.Submit(context.Background(), gate.Submission{Broker: p, Intent: &in})
		samples = append(samples, time.Since(start))
		if d.Outcome != live.OutcomeAccepted || d.AuditErr != nil {
			b.Fatalf("%s %v", d.Message(), d.AuditErr)
		}
	}
	percentiles(b, samples, "orders/s")
}

var (
	millionOnce sync.Once
	millionPath string
	millionErr  error
)

// million builds (once per benchmark binary) a database of 1,000,000 events shaped like a
// session's: decisions, breaches, denials with reason codes and order ids.
func million(b *testing.B) string {
	if p := os.Getenv("COCKPIT_BENCH_1M"); p != "" { // reuse one built by an earlier run
		return p
	}
	millionOnce.Do(func() {
		dir, err := osMkdirTemp()
		if err != nil {
			millionErr = err
			return
		}
		millionPath = filepath.Join(dir, "cockpit.db")
		db, err := Open(millionPath)
		if err != nil {
			millionErr = err
			return
		}
		defer db.Close()
		types := []string{live.KindOrderPlaced, live.KindBreach, live.KindOrderRejected, live.KindOrderCancelled, "scanner_finding"}
		reasons := []string{"", "max_order_notional_usd", "halted", "lock_busy", "no_quote"}
		const batch = 20000
		start := livetest.Epoch
		for done := 0; done < 1_000_000; done += batch {
			evs := make([]Event, batch)
			for i := range evs {
				k := done + i
				evs[i] = Event{Time: start.Add(time.Duration(k) * 100 * time.Millisecond), ActorKind: "agent", ActorID: "strategy",
					Type: types[k%len(types)], Outcome: "accepted", Reason: reasons[k%len(reasons)], Broker: "paper",
					OrderID: fmt.Sprintf("P%07d", k/3), Summary: fmt.Sprintf("buy $%d AAPL (equity)", 100+k%900),
					Payload: fmt.Sprintf(`{"intent":"buy $%d AAPL (equity)","request":{"notional":%d,"symbol":"AAPL"}}`, 100+k%900, 100+k%900)}
			}
			if _, err := db.AppendBatch(context.Background(), evs); err != nil {
				millionErr = err
				return
			}
		}
	})
	if millionErr != nil {
		b.Fatal(millionErr)
	}
	return millionPath
}

// BenchmarkPageQuery1M: the audit view's queries on a 1,000,000-event database: the newest
// page, a page deep in the past, and pages filtered by type, reason code and order id.
func BenchmarkPageQuery1M(b *testing.B) {
	db, err := Open(million(b))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	cases := []struct {
		name string
		f    Filter
	}{
		{"newest", Filter{Limit: 50}},
		{"deep", Filter{Limit: 50, BeforeSeq: 10_000}},
		{"type", Filter{Limit: 50, Type: live.KindBreach}},
		{"reason", Filter{Limit: 50, Reason: "halted", BeforeSeq: 500_000}},
		{"order", Filter{Limit: 50, OrderID: "P0123456"}},
		{"since", Filter{Limit: 50, Since: livetest.Epoch.Add(24 * time.Hour)}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var samples []time.Duration
			for b.Loop() {
				start := time.Now()
				evs, err := db.Events(ctx, c.f)
				samples = append(samples, time.Since(start))
				if err != nil || len(evs) == 0 {
					b.Fatalf("%d events, %v", len(evs), err)
				}
			}
			percentiles(b, samples, "pages/s")
		})
	}
}

func osMkdirTemp() (string, error) { return os.MkdirTemp("", "cockpit-bench-") }
