package store

import (
	"context"
	"path/filepath"
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

// BenchmarkGateFourBrokers: four agents, each on its own broker, through one gate and this
// store (each op is one decision; their commits are shared).
func BenchmarkGateFourBrokers(b *testing.B) {
	root := livetest.Root(b)
	db := mustOpen(b, filepath.Join(root.Dir(), "cockpit.db"))
	doc := strings.Replace(livetest.MandateDoc, `"max_trades_per_day": 20`, `"max_trades_per_day": 1000000`, 1)
	doc = strings.Replace(doc, `"max_total_exposure_usd": 100000`, `"max_total_exposure_usd": 1000000000`, 1)
	doc = strings.Replace(doc, `"account_funding_usd": 100000`, `"account_funding_usd": 1000000000`, 1)
	keys := []string{"paper", "paper-b", "paper-c", "paper-d"}
	brokers := map[string]*paper.Broker{}
	for _, k := range keys {
		livetest.Commit(b, root, k, doc, time.Now())
		p, err := paper.New(paper.Config{Key: k, Market: paper.MarketConfig{Seed: 1, Symbols: paper.DefaultSymbols()}, Cash: money.MustParse("1e12")})
		if err != nil {
			b.Fatal(err)
		}
		brokers[k] = p
	}
	g := &gate.Gate{Root: root, Audit: db, Journal: db, Mandates: livetest.Ledger(root)}
	n := money.MustParse("100")
	work := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, len(keys))
	start := time.Now()
	for _, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := live.OrderIntent{Symbol: "SPY", Side: live.Buy, InstrumentType: live.ETF, NotionalUSD: &n}
			for range work {
				if d := g.Submit(context.Background(), gate.Submission{Broker: brokers[k], BrokerKey: k, Intent: &in}); d.AuditErr != nil {
					errs <- d.AuditErr
				}
			}
		}()
	}
	for b.Loop() {
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "decisions/s")
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
}
