package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/livetest"
	"cockpit/live/money"
	"cockpit/live/paper"
)

// historySizes are the pasts the history benchmarks run on: a fresh root, 10,000 and 100,000
// settled orders (issue 32: an order costs the same on day 300 as on day 1).
var historySizes = []int{0, 10_000, 100_000}

// withHistory is a store under a runtime root holding n settled orders of "paper" (journal,
// audit events, paper rows, one resolved review item per 20 orders) before now, with a
// mandate committed and recorded in it.
func withHistory(b *testing.B, n int) (live.Root, *DB) {
	b.Helper()
	root := livetest.Root(b)
	db := mustOpen(b, filepath.Join(root.Dir(), "cockpit.db"))
	now := time.Now()
	if err := db.SeedHistory(context.Background(), History{Broker: "paper", Orders: n, Before: now.Add(-time.Hour), Paper: true}); err != nil {
		b.Fatal(err)
	}
	doc := strings.Replace(livetest.MandateDoc, `"max_trades_per_day": 20`, `"max_trades_per_day": 1000000`, 1)
	doc = strings.Replace(doc, `"max_total_exposure_usd": 100000`, `"max_total_exposure_usd": 1000000000`, 1)
	doc = strings.Replace(doc, `"account_funding_usd": 100000`, `"account_funding_usd": 1000000000`, 1)
	livetest.CommitTo(b, db, root, "paper", doc, now)
	p, err := paper.New(paper.Config{Market: paper.MarketConfig{Seed: 1, Symbols: paper.DefaultSymbols()},
		Cash: money.MustParse("1e12"), Store: db.PaperStore("paper")})
	if err == nil {
		err = p.Save()
	}
	if err != nil {
		b.Fatal(err)
	}
	db.SetAnchor(filepath.Join(root.Dir(), AnchorFile))
	db.AnchorEvery = 100 * time.Millisecond
	return root, db
}

// BenchmarkHistoryOrder: one in-mandate order through the durable gate to a paper broker saved
// in the same store (the write-ahead row with the audit probe, the broker's save, the outcome
// with its audit record, the day's count, the mandate's ledger), at 0, 10,000 and 100,000
// settled orders of history. Goal: p50 at 100,000 ≤ 1.2× the p50 at 0.
func BenchmarkHistoryOrder(b *testing.B) {
	for _, n := range historySizes {
		b.Run(fmt.Sprintf("history=%d", n), func(b *testing.B) {
			root, db := withHistory(b, n)
			st, _, err := db.LoadPaper(context.Background(), "paper")
			if err != nil {
				b.Fatal(err)
			}
			p, err := paper.New(paper.Config{Market: paper.MarketConfig{Seed: 1, Symbols: paper.DefaultSymbols()},
				State: st, Store: db.PaperStore("paper")})
			if err != nil {
				b.Fatal(err)
			}
			g := &gate.Gate{Root: root, Audit: db, Journal: db, Mandates: db}
			amount := money.MustParse("100")
			in := live.OrderIntent{Symbol: "SPY", Side: live.Buy, InstrumentType: live.ETF, NotionalUSD: &amount}
			var samples []time.Duration
			for b.Loop() {
				start := time.Now()
				d := g.Submit(context.Background(), gate.Submission{Broker: p, Intent: &in, Actor: live.Agent("bench", "b")})
				samples = append(samples, time.Since(start))
				if d.Outcome != live.OutcomeAccepted || d.AuditErr != nil {
					b.Fatalf("%s %v", d.Message(), d.AuditErr)
				}
			}
			percentiles(b, samples, "orders/s")
		})
	}
}

// BenchmarkHistoryReads: the reads that run for each order, each second of the screen or at
// each start, at 0, 10,000 and 100,000 settled orders of history; each should cost the same
// at every size.
func BenchmarkHistoryReads(b *testing.B) {
	ctx := context.Background()
	for _, n := range historySizes {
		_, db := withHistory(b, n)
		day := time.Now().UTC().Truncate(24 * time.Hour)
		ids := make([]string, 20)
		for i := range ids {
			ids[i] = fmt.Sprintf("ck_seed_%07d", max(0, n-1-i*97))
		}
		cid := fmt.Sprintf("ck_seed_%07d", n/2)
		reads := []struct {
			name string
			fn   func() error
		}{
			{"pending-reviews", func() error { _, err := db.Approvals(ctx, ApprovalPending, 200); return err }},
			{"audit-tail", func() error { _, err := db.Events(ctx, Filter{Limit: 300}); return err }},
			{"largest-today", func() error { _, err := db.LargestNotional(ctx, "paper", day); return err }},
			{"spend-today", func() error { return db.EachEvent(ctx, live.KindLLMUsage, day, func(time.Time, string) {}) }},
			{"placers-of-20", func() error { _, err := db.JournalActors(ctx, "paper", ids); return err }},
			{"trail", func() error { _, err := db.Events(ctx, Filter{OrderID: cid, Ascending: true, Limit: 50}); return err }},
			{"day-count", func() error { _, err := db.AcceptedOrders(ctx, "paper", time.Now()); return err }},
			{"mandate-hash", func() error { _, _, err := db.LastMandateHash(ctx, "paper"); return err }},
			{"paper-by-client", func() error { _, _, err := db.PaperStore("paper").OrderByClientID(cid); return err }},
			{"paper-load", func() error { _, _, err := db.LoadPaper(ctx, "paper"); return err }},
		}
		for _, r := range reads {
			b.Run(fmt.Sprintf("history=%d/%s", n, r.name), func(b *testing.B) {
				for b.Loop() {
					if err := r.fn(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
