package gate_test

import (
	"context"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/jsonv"
)

// BenchmarkGateInstruments is a full gate decision (journal, forward, count, audit) per
// instrument against a broker with fixed quotes: an equity, a crypto fraction, option
// contracts and a two-leg spread, each from place_order arguments.
func BenchmarkGateInstruments(b *testing.B) {
	for _, bc := range []struct{ name, args string }{
		{"equity", `{"symbol":"AAPL","side":"buy","quantity":"1"}`},
		{"crypto", `{"symbol":"BTC/USD","side":"buy","quantity":"0.0015"}`},
		{"option", `{"symbol":"AAPL250117C00150000","side":"buy","quantity":3}`},
		{"spread", `{"quantity":3,"legs":[{"symbol":"AAPL250117C00150000","side":"buy","ratio_qty":1},{"symbol":"AAPL250117C00160000","side":"sell","ratio_qty":1}]}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			qb := newQuoteBroker()
			g := instrumentGate(b, qb, `"equity", "etf", "option", "crypto"`, `"us_equity", "us_etf", "crypto"`,
				`"max_trades_per_day": 20`, `"max_trades_per_day": 1000000`,
				`"max_total_exposure_usd": 100000`, `"max_total_exposure_usd": 1000000000`,
				`"account_funding_usd": 100000`, `"account_funding_usd": 1000000000`)
			g.CountOpenOrders = false
			v, err := jsonv.Parse([]byte(bc.args), jsonv.Options{})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			samples := make([]time.Duration, 0, 4096)
			for b.Loop() {
				start := time.Now()
				in, req := live.ExtractGeneric(v.(*jsonv.Object))
				d := g.Submit(ctx, gate.Submission{Broker: qb, Intent: &in, Order: req})
				samples = append(samples, time.Since(start))
				if d.Verdict != live.Allow {
					b.Fatalf("%s: %s", d.Verdict, d.Message())
				}
			}
			reportLatency(b, samples, "orders/s")
		})
	}
}
