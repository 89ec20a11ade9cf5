package mcpserve_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cockpit/engine/mcpserve"
	"cockpit/internal/enginetest"
	"cockpit/live"
)

// sessions serves the fixture's engine and connects n client sessions that all introduce
// themselves the same way (so the agent identity in the audit is shared; the limits are not).
func sessions(t *testing.T, f *enginetest.Fixture, n int) []*mcp.ClientSession {
	t.Helper()
	srv, err := mcpserve.New(f.Engine)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out []*mcp.ClientSession
	var servers []*mcp.ServerSession
	for range n {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.MCP().Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "honest agent", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		out, servers = append(out, cs), append(servers, ss)
	}
	t.Cleanup(func() {
		for i, cs := range out {
			cs.Close()
			servers[i].Wait()
		}
		cancel()
	})
	return out
}

// TestDenialsCoolOnlyTheirClient (issue 27 item 7): client A's five denied orders pause A;
// client B, connected at the same time under the same name, keeps trading.
func TestDenialsCoolOnlyTheirClient(t *testing.T) {
	f := enginetest.New(t)
	cs := sessions(t, f, 2)
	a, b := cs[0], cs[1]
	for i := range 5 {
		if res, out := call(t, a, "place_order", enginetest.Buy("GME", "100")); !res.IsError || out["reason_code"] != "mandate:exclude_symbols" {
			t.Fatalf("A's denial %d: got %v, want mandate:exclude_symbols", i+1, out)
		}
	}
	if _, out := call(t, a, "place_order", enginetest.Buy("AAPL", "100")); out["reason_code"] != string(live.ReasonCoolingDown) {
		t.Errorf("A after five denials: got %v, want cooling_down", out)
	}
	if res, out := call(t, b, "place_order", enginetest.Buy("AAPL", "100")); res.IsError || out["status"] != "ok" {
		t.Errorf("B after A's five denials: got %v, want ok (A's pause is A's alone)", out)
	}
	if got := f.Placed(); got != 1 {
		t.Errorf("placed %d orders, want 1 (B's)", got)
	}
}

// TestRateLimitPerClient (issue 27 item 7): a requests_per_minute limit counts each client
// session's own calls; one client using its budget up does not refuse another.
func TestRateLimitPerClient(t *testing.T) {
	f := enginetest.New(t, enginetest.WithPolicy("[policy.global]\nrate_limits = { requests_per_minute = 2 }"))
	cs := sessions(t, f, 2)
	for i := range 2 {
		if res, out := call(t, cs[0], "get_quote", map[string]any{"symbol": "AAPL"}); res.IsError {
			t.Fatalf("A's call %d: %v", i+1, out)
		}
	}
	if _, out := call(t, cs[0], "get_quote", map[string]any{"symbol": "AAPL"}); !strings.HasPrefix(out["reason_code"].(string), "rate:global.requests_per_minute") {
		t.Errorf("A's third call: got %v, want rate:global.requests_per_minute", out)
	}
	if res, out := call(t, cs[1], "get_quote", map[string]any{"symbol": "AAPL"}); res.IsError {
		t.Errorf("B's first call after A's budget ran out: got %v, want ok", out)
	}
}

// TestConcurrentHonestClients (issue 27 item 7): 30 clients placing one in-mandate order each
// at the same time all get their order through: contention for the submit lock is waited
// out, never turned into a denial (and so never into a cool-down).
func TestConcurrentHonestClients(t *testing.T) {
	const n = 30
	doc := `{"hard_caps": {"account_funding_usd": 100000, "max_order_notional_usd": 5000,
 "max_total_exposure_usd": 100000, "max_leverage": 1, "allowed_instruments": ["equity", "etf"], "max_trades_per_day": 100},
 "universe": {"asset_classes": ["us_equity", "us_etf"], "min_market_cap_usd": null, "min_avg_daily_volume_usd": null,
 "exclude_symbols": ["GME"]}}`
	f := enginetest.New(t, enginetest.WithMandate(doc))
	cs := sessions(t, f, n)
	outs := make([]map[string]any, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, c := range cs {
		wg.Go(func() {
			<-start
			_, outs[i] = call(t, c, "place_order", enginetest.Buy("AAPL", "100"))
		})
	}
	close(start)
	wg.Wait()
	codes := map[string]int{}
	for _, out := range outs {
		if out["status"] != "ok" {
			code, _ := out["reason_code"].(string)
			codes[code]++
		}
	}
	if len(codes) > 0 {
		t.Errorf("%d honest clients at once: refused %v, want every order through", n, codes)
	}
	if got := f.Placed(); got != n {
		t.Errorf("placed %d orders, want %d", got, n)
	}
}
