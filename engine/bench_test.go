package engine_test

import (
	"context"
	"testing"
	"time"

	"cockpit/internal/enginetest"
	"cockpit/live/jsonv"
)

// BenchmarkExecuteRead measures one read tool call through the chokepoint: lookup,
// validation, classification, the policy meet, the rate limiter, the broker read, and one
// durable audit record in SQLite.
func BenchmarkExecuteRead(b *testing.B) {
	f := enginetest.New(b)
	f.CheckTerminal = false
	tr := f.Turn()
	args := jsonv.ObjectOf("symbol", "AAPL")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := tr.CallJSON(context.Background(), "get_quote", args); !r.OK() {
			b.Fatal(r)
		}
	}
}

// BenchmarkExecuteOrder measures one allowed order end to end: the chokepoint, the gate
// (mandate, quote, positions and open orders, lock, count, CheckMandate, journal, forward)
// and its audit record. Buys and sells alternate so cash and positions stay level.
func BenchmarkExecuteOrder(b *testing.B) {
	f := enginetest.New(b, enginetest.WithMandate(`{"hard_caps": {"account_funding_usd": 100000000, "max_order_notional_usd": 5000,
 "max_total_exposure_usd": 100000000, "max_leverage": 1, "allowed_instruments": ["equity", "etf"], "max_trades_per_day": 1000000},
 "universe": {"asset_classes": ["us_equity", "us_etf"], "min_market_cap_usd": null, "min_avg_daily_volume_usd": null, "exclude_symbols": []}}`))
	f.CheckTerminal = false
	tr := f.Turn()
	sides := []string{"buy", "sell"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		args := jsonv.ObjectOf("symbol", "AAPL", "side", sides[i%2], "quantity", jsonv.Number("1"))
		if r := tr.CallJSON(context.Background(), "place_order", args); !r.OK() {
			b.Fatal(r)
		}
		f.Clock.Advance(time.Second)
	}
}
