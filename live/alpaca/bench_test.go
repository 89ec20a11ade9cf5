package alpaca_test

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/alpaca"
	"cockpit/live/alpaca/alpacafake"
	"cockpit/live/auditsink"
	"cockpit/live/gate"
	"cockpit/live/livetest"
	"cockpit/live/money"
)

// BenchmarkAlpacaGate: an in-mandate order through the whole gate (lock, journal, quote,
// forward, fsynced count, audit) and the Alpaca connector to the local httptest fake, over
// loopback HTTP: the gate's decision and forward as the real connector makes it.
func BenchmarkAlpacaGate(b *testing.B) {
	const key, secret = "PKBENCHKEY0123456789", "benchSecret0123456789abcdefghij"
	f := alpacafake.New(key, secret, money.MustParse("1000000000000"))
	defer f.Close()
	br, err := alpaca.New(alpaca.Config{Key: "alpaca", Mode: "paper", BaseURL: f.URL, DataURL: f.URL, KeyID: key, Secret: secret, Timeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	root := livetest.Root(b)
	doc := strings.Replace(livetest.MandateDoc, `"max_trades_per_day": 20`, `"max_trades_per_day": 1000000`, 1)
	doc = strings.Replace(doc, `"max_total_exposure_usd": 100000`, `"max_total_exposure_usd": 1000000000`, 1)
	doc = strings.Replace(doc, `"account_funding_usd": 100000`, `"account_funding_usd": 1000000000`, 1)
	livetest.Commit(b, root, "alpaca", doc, time.Now())
	g := &gate.Gate{Root: root, Audit: &auditsink.Memory{}, Journal: &live.MemoryJournal{}, Mandates: livetest.Ledger(root)}
	n := money.MustParse("100")
	in := live.OrderIntent{Symbol: "SPY", Side: live.Buy, InstrumentType: live.ETF, NotionalUSD: &n}
	ctx := context.Background()
	samples := make([]time.Duration, 0, 4096)
	for b.Loop() {
		start := time.Now()
		d := g.Submit(ctx, gate.Submission{Broker: br, BrokerKey: "alpaca", Intent: &in})
		samples = append(samples, time.Since(start))
		if d.Outcome != live.OutcomeAccepted {
			b.Fatalf("not accepted: %s", d.Message())
		}
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	pick := func(q float64) float64 { return float64(samples[int(q*float64(len(samples)-1))].Microseconds()) }
	var total time.Duration
	for _, s := range samples {
		total += s
	}
	b.ReportMetric(pick(0.50), "p50-µs")
	b.ReportMetric(pick(0.99), "p99-µs")
	b.ReportMetric(float64(len(samples))/total.Seconds(), "orders/s")
}
