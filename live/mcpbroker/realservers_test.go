package mcpbroker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cockpit/live"
	"cockpit/live/auditsink"
	"cockpit/live/gate"
	"cockpit/live/jsonv"
	"cockpit/live/livetest"
	"cockpit/live/mcpbroker"
	"cockpit/live/money"
)

// The tests in this file start the real third-party broker MCP servers the shipped profiles
// were written for (scripts/broker-servers pins their versions; .ci/run installs them). They
// run offline: each server lists its tools without credentials, and the IBKR server is
// pointed at a fake Client Portal Gateway on loopback.

// serverScript is the installed entry point of a pinned server, or a skip.
func serverScript(t *testing.T, rel string) (node, script string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("skipped: node is not installed (the real broker MCP server tests need it)")
	}
	script = filepath.Join("..", "..", "scripts", "broker-servers", "node_modules", rel)
	if _, err := os.Stat(script); err != nil {
		t.Skipf("skipped: %s is not installed; run npm ci --prefix scripts/broker-servers", rel)
	}
	return node, script
}

// wire records the JSON-RPC messages cockpit writes to the server.
type wire struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *wire) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// called lists the tools cockpit called (tools/call requests written to the server).
func (w *wire) called() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, line := range strings.Split(w.buf.String(), "\n") {
		msg, ok := strings.CutPrefix(line, "write: ")
		if !ok {
			continue
		}
		var m struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(msg), &m) == nil && m.Method == "tools/call" {
			out = append(out, m.Params.Name)
		}
	}
	return out
}

// startServer starts a pinned server over stdio with env and connects to it with the
// profile bound to key.
func startServer(t *testing.T, rel, profile, key string, vars, env map[string]string) (*mcpbroker.Broker, *wire) {
	t.Helper()
	node, script := serverScript(t, rel)
	p, err := live.Profiles()[profile].Bind(key, vars)
	if err != nil {
		t.Fatal(err)
	}
	var pass []string
	for k := range env {
		pass = append(pass, k)
	}
	ep := mcpbroker.Endpoint{Command: []string{node, script}, EnvPass: pass, Getenv: func(k string) string { return env[k] }}
	tr, err := ep.Transport()
	if err != nil {
		t.Fatal(err)
	}
	w := &wire{}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	b, err := mcpbroker.Connect(ctx, &mcp.LoggingTransport{Transport: tr, Writer: w}, mcpbroker.Options{Key: key, Profile: p, Timeout: 60 * time.Second})
	if err != nil {
		t.Fatalf("start %s: %v", rel, err)
	}
	t.Cleanup(func() { b.Close() })
	return b, w
}

// checkClasses: the server lists exactly the profile's tools (none it does not know), each
// order-placing tool is WRITE, and want gives each tool's class and extractor.
func checkClasses(t *testing.T, b *mcpbroker.Broker, key string, want map[string]string) {
	t.Helper()
	p := b.Profile
	classes := mcpbroker.Curated(p, key)
	got := map[string]string{}
	var names []string
	for _, tl := range b.Tools() {
		c := classes.Classify(tl.Name, tl.ReadOnlyHint)
		ex := "-"
		switch {
		case p.HasExtractor(tl.Name):
			ex = "extractor"
		case c.IsWrite():
			ex = "denied: no extractor"
		}
		got[tl.Name] = string(c) + " " + ex
		names = append(names, tl.Name)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Logf("%-28s %s", n, got[n])
	}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("%s: got %q, want %q", n, got[n], w)
		}
	}
	for n := range got {
		if _, ok := want[n]; !ok {
			t.Errorf("the server lists %s, which the test does not expect", n)
		}
	}
}

// fixedPrices is the market-data source of a gate: one price for every symbol.
type fixedPrices struct{ px money.Amount }

func (f fixedPrices) LastPrice(context.Context, string, live.AssetClass) (*money.Amount, error) {
	return &f.px, nil
}

// realGate is a gate over the mandate doc for key.
func realGate(t *testing.T, key, doc string, prices gate.PriceSource) *gate.Gate {
	t.Helper()
	root, clock := livetest.Root(t), livetest.NewClock(time.Now())
	livetest.Commit(t, root, key, doc, clock.Now())
	return &gate.Gate{Root: root, Now: clock.Now, Audit: &auditsink.Memory{}, Journal: &live.MemoryJournal{},
		Mandates: livetest.Ledger(root), Prices: prices}
}

func submit(t *testing.T, g *gate.Gate, b *mcpbroker.Broker, tool, args string) gate.Decision {
	t.Helper()
	v, err := jsonv.ParseString(args, jsonv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := g.Submit(context.Background(), gate.Submission{Broker: b, Profile: b.Profile, Tool: tool, Args: v.(*jsonv.Object), Actor: live.Agent("test", "s1")})
	t.Logf("%s %s -> %s %s forwarded=%v: %s", tool, args, d.Verdict, d.Reason, d.Forwarded, d.Message())
	return d
}

func calledTool(w *wire, tool string) bool {
	for _, c := range w.called() {
		if c == tool {
			return true
		}
	}
	return false
}

// TestRealCCXTServer starts @mcpfun/mcp-server-ccxt 1.2.1 as [brokers.binance] with the ccxt
// profile: its tools are classified as the profile says, and orders the gate refuses never
// reach place-market-order (an order over the mandate, one for another venue, a futures one).
func TestRealCCXTServer(t *testing.T) {
	b, w := startServer(t, "@mcpfun/mcp-server-ccxt/build/index.js", "ccxt", "binance", nil, nil)
	read, write, order := "read -", "write denied: no extractor", "write extractor"
	checkClasses(t, b, "binance", map[string]string{
		"list-exchanges": read, "get-ticker": read, "batch-get-tickers": read, "get-orderbook": read, "get-ohlcv": read,
		"get-trades": read, "get-markets": read, "get-exchange-info": read, "get-leverage-tiers": read,
		"get-funding-rates": read, "get-market-types": read, "account-balance": read, "get-proxy-config": read, "cache-stats": read,
		"place-market-order": order, "place-futures-market-order": write, "set-leverage": write, "set-margin-mode": write,
		"set-proxy-config": write, "test-proxy-connection": write, "clear-exchange-cache": write, "set-market-type": write,
		"clear-cache": write, "set-log-level": write,
	})
	doc := strings.Replace(livetest.MandateDoc, `"allowed_instruments": ["equity", "etf"]`, `"allowed_instruments": ["crypto"]`, 1)
	doc = strings.Replace(doc, `"asset_classes": ["us_equity", "us_etf"]`, `"asset_classes": ["crypto"]`, 1)
	g := realGate(t, "binance", doc, fixedPrices{money.MustParse("60000")})
	for _, tt := range []struct{ name, tool, args string }{
		{"over the mandate", "place-market-order", `{"exchange":"binance","symbol":"BTC/USDT","side":"buy","amount":1,"apiKey":"k-test","secret":"s-test"}`},
		{"another venue", "place-market-order", `{"exchange":"kraken","symbol":"BTC/USDT","side":"buy","amount":0.0001,"apiKey":"k","secret":"s"}`},
		{"futures", "place-futures-market-order", `{"exchange":"binance","symbol":"BTC/USDT","side":"buy","amount":0.0001,"apiKey":"k","secret":"s"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := submit(t, g, b, tt.tool, tt.args)
			if d.Verdict == live.Allow || d.Forwarded {
				t.Fatalf("got %s forwarded=%v, want a refusal", d.Verdict, d.Forwarded)
			}
			if calledTool(w, tt.tool) {
				t.Fatalf("the server was called with %s: %v", tt.tool, w.called())
			}
		})
	}
}

// fakeGateway is IBKR's Client Portal Gateway on loopback, as far as the server's reads and
// order route need: authenticated, AAPL at 190.50, 10 AAPL held, and an order endpoint that
// records what reaches it.
type fakeGateway struct {
	mu     sync.Mutex
	orders []string
}

func (f *fakeGateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	p := strings.TrimPrefix(r.URL.Path, "/v1/api")
	switch {
	case p == "/iserver/auth/status":
		w.Write([]byte(`{"authenticated":true,"connected":true,"established":true}`))
	case p == "/tickle": // unauthenticated here, so the server's detached tickler stops at once
		w.Write([]byte(`{"iserver":{"authStatus":{"authenticated":false,"connected":false}}}`))
	case p == "/iserver/secdef/search":
		w.Write([]byte(`[{"conid":"265598","symbol":"AAPL","companyHeader":"APPLE INC - NASDAQ"}]`))
	case p == "/iserver/marketdata/snapshot":
		w.Write([]byte(`[{"conid":265598,"31":"190.50","84":"190.45","86":"190.55"}]`))
	case p == "/portfolio/U123/positions":
		w.Write([]byte(`[{"conid":265598,"ticker":"AAPL","position":10,"mktValue":1905}]`))
	case strings.HasPrefix(p, "/iserver/account/") && strings.HasSuffix(p, "/orders") && r.Method == http.MethodPost:
		body := new(bytes.Buffer)
		body.ReadFrom(r.Body)
		f.mu.Lock()
		f.orders = append(f.orders, body.String())
		f.mu.Unlock()
		w.Write([]byte(`[{"order_id":"1877","order_status":"Submitted"}]`))
	case p == "/iserver/accounts" || p == "/portfolio/accounts":
		w.Write([]byte(`{"accounts":["U123"],"selectedAccount":"U123"}`))
	default:
		w.Write([]byte(`{}`))
	}
}

func (f *fakeGateway) placed() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.orders...)
}

// TestRealIBKRServer starts interactive-brokers-mcp 1.24.1 against a fake gateway as
// [brokers.ibkr] with the ibkr-mcp profile: its tools are classified as the profile says;
// quotes and positions are read through it; an order over the mandate (a stop valued at its
// trigger too) or with prices its type does not take is refused before the server is called,
// and orders inside the mandate (a limit buy, a protective stop) reach the gateway.
func TestRealIBKRServer(t *testing.T) {
	gw := &fakeGateway{}
	srv := httptest.NewTLSServer(gw)
	defer srv.Close()
	host, port, _ := strings.Cut(strings.TrimPrefix(srv.URL, "https://"), ":")
	b, w := startServer(t, "interactive-brokers-mcp/dist/index.js", "ibkr-mcp", "ibkr", map[string]string{"account": "U123"},
		map[string]string{"IB_GATEWAY_HOST": host, "IB_GATEWAY_PORT": port, "HOME": t.TempDir()})
	read, write, order := "read -", "write denied: no extractor", "write extractor"
	checkClasses(t, b, "ibkr", map[string]string{
		"authenticate": write, "get_account_info": read, "get_positions": read, "get_option_chain": read,
		"resolve_option_conid": read, "get_market_data": read, "place_order": order, "get_order_status": read,
		"get_live_orders": read, "confirm_order": write, "get_alerts": read, "create_alert": write,
		"activate_alert": write, "delete_alert": write,
	})
	ctx := context.Background()
	q, err := b.Quote(ctx, "AAPL")
	if err != nil || q.Last.String() != "190.5" {
		t.Fatalf("Quote through the server: got %v, %v; want 190.5", q.Last, err)
	}
	ps, err := b.Positions(ctx)
	if err != nil || len(ps) != 1 || ps[0].Qty.String() != "10" {
		t.Fatalf("Positions through the server: got %+v, %v; want 10 AAPL", ps, err)
	}
	g := realGate(t, "ibkr", "", nil)
	for _, tt := range []struct{ name, args string }{
		{"over the mandate", `{"accountId":"U123","symbol":"AAPL","action":"BUY","orderType":"MKT","quantity":1000}`},
		{"stop over the mandate at its trigger", `{"accountId":"U123","symbol":"AAPL","action":"BUY","orderType":"STP","quantity":26,"stopPrice":200}`},
		{"stop with a price it does not take", `{"accountId":"U123","symbol":"AAPL","action":"BUY","orderType":"STP","quantity":1,"stopPrice":200,"price":201}`},
		{"market with a stop price", `{"accountId":"U123","symbol":"AAPL","action":"BUY","orderType":"MKT","quantity":1,"stopPrice":200}`},
		{"by conid", `{"accountId":"U123","conid":265598,"action":"BUY","orderType":"MKT","quantity":1}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := submit(t, g, b, "place_order", tt.args)
			if d.Verdict == live.Allow || d.Forwarded || calledTool(w, "place_order") || len(gw.placed()) > 0 {
				t.Fatalf("got %s forwarded=%v calls=%v gateway orders=%v, want a refusal before the server", d.Verdict, d.Forwarded, w.called(), gw.placed())
			}
		})
	}
	d := submit(t, g, b, "place_order", `{"accountId":"U123","symbol":"AAPL","action":"BUY","orderType":"LMT","quantity":2,"price":190.6,"suppressConfirmations":true}`)
	if d.Verdict != live.Allow || !d.Forwarded || len(gw.placed()) != 1 {
		t.Fatalf("inside the mandate: got %s forwarded=%v gateway orders=%v, want it placed once", d.Verdict, d.Forwarded, gw.placed())
	}
	t.Logf("the gateway received %s", gw.placed()[0])
	// A protective stop on the 10 AAPL held, valued at its trigger, reaches the gateway as STP
	// with the stop as IBKR's auxPrice.
	d = submit(t, g, b, "place_order", `{"accountId":"U123","symbol":"AAPL","action":"SELL","orderType":"STP","quantity":5,"stopPrice":180,"suppressConfirmations":true}`)
	if d.Verdict != live.Allow || !d.Forwarded || len(gw.placed()) != 2 {
		t.Fatalf("protective stop: got %s %s forwarded=%v gateway orders=%v, want it placed", d.Verdict, d.Reason, d.Forwarded, gw.placed())
	}
	if got := gw.placed()[1]; !strings.Contains(got, `"orderType":"STP"`) || !strings.Contains(got, `"auxPrice":180`) {
		t.Errorf("the gateway received %s, want an STP order with auxPrice 180", got)
	}
}
