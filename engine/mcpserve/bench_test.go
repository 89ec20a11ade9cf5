package mcpserve_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cockpit/engine/mcpserve"
	"cockpit/internal/enginetest"
)

const benchMandate = `{"hard_caps": {"account_funding_usd": 100000000, "max_order_notional_usd": 5000,
 "max_total_exposure_usd": 100000000, "max_leverage": 1, "allowed_instruments": ["equity", "etf"], "max_trades_per_day": 1000000},
 "universe": {"asset_classes": ["us_equity", "us_etf"], "min_market_cap_usd": null, "min_avg_daily_volume_usd": null, "exclude_symbols": []}}`

// roundTrips places b.N allowed orders (buys and sells alternating) through cs and reports the
// p50 and p99 of one MCP round trip.
func roundTrips(b *testing.B, f *enginetest.Fixture, cs *mcp.ClientSession) {
	sides := []string{"buy", "sell"}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "place_order",
			Arguments: map[string]any{"symbol": "AAPL", "side": sides[i%2], "quantity": "1"}})
		lat = append(lat, time.Since(start))
		if err != nil || res.IsError {
			b.Fatalf("order %d: %v %+v", i, err, res)
		}
		f.Clock.Advance(time.Second)
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)*50/100].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkOrderInMemory: one gated, allowed order over the in-memory transport.
func BenchmarkOrderInMemory(b *testing.B) {
	f := enginetest.New(b, enginetest.WithMandate(benchMandate))
	f.CheckTerminal = false
	srv, err := mcpserve.New(f.Engine)
	if err != nil {
		b.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	roundTrips(b, f, cs)
}

// BenchmarkOrderHTTP: one gated, allowed order over streamable HTTP on loopback, with the
// guard, the token and the body cap in the path.
func BenchmarkOrderHTTP(b *testing.B) {
	f := enginetest.New(b, enginetest.WithMandate(benchMandate))
	f.CheckTerminal = false
	srv, err := mcpserve.New(f.Engine)
	if err != nil {
		b.Fatal(err)
	}
	tok, err := mcpserve.EnsureToken(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	h, err := srv.Handler(mcpserve.HTTPOptions{Token: tok})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: &http.Client{Transport: bearer{tok}}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	roundTrips(b, f, cs)
}
