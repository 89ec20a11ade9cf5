package mcpbroker_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/jsonv"
	"cockpit/live/mcpbroker/mcppaper"
)

// benchDoc lets a benchmark place many small orders in one day.
const benchDoc = `{"hard_caps": {"account_funding_usd": 1000000000, "max_order_notional_usd": 5000,
 "max_total_exposure_usd": 1000000000, "max_leverage": 1, "allowed_instruments": ["equity"], "max_trades_per_day": 1000000},
 "universe": {"asset_classes": ["us_equity"], "min_market_cap_usd": null, "min_avg_daily_volume_usd": null, "exclude_symbols": []}}`

// BenchmarkGateThroughMCP is a gate decision on an order through the MCP adapter against the
// in-memory paper server: "decide" is a dry run (every read over MCP: positions, account, open
// orders, quote — no lock, journal or forward); "submit" is the whole ritual including the
// forward to the server's order tool. Reports orders/s and the p50/p99 latency of one decision.
func BenchmarkGateThroughMCP(b *testing.B) {
	for _, mode := range []struct {
		name string
		dry  bool
	}{{"decide", true}, {"submit", false}} {
		for _, profile := range []string{"alpaca", "robinhood"} {
			b.Run(mode.name+"/"+profile, func(b *testing.B) {
				r := newRigDoc(b, "mcppaper", profile, mcppaper.Options{}, benchDoc)
				r.gate.CountOpenOrders = true
				tool, args := "place_stock_order", jsonv.ObjectOf("symbol", "AAPL", "side", "buy", "qty", "1")
				if profile == "robinhood" {
					tool, args = "place_equity_order", jsonv.ObjectOf("symbol", "AAPL", "side", "buy", "instrument_type", "equity", "quantity", "1")
				}
				ctx := context.Background()
				lat := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for b.Loop() {
					start := time.Now()
					d := r.gate.Submit(ctx, gate.Submission{Broker: r.mb, Profile: r.mb.Profile, Tool: tool, Args: args,
						Actor: live.Agent("bench", "s"), DryRun: mode.dry})
					lat = append(lat, time.Since(start))
					if d.Verdict != live.Allow {
						b.Fatalf("decision: %s %s %v", d.Verdict, d.Reason, d.Denial)
					}
				}
				b.StopTimer()
				slices.Sort(lat)
				var total time.Duration
				for _, l := range lat {
					total += l
				}
				b.ReportMetric(float64(len(lat))/total.Seconds(), "orders/s")
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			})
		}
	}
}
