package metrics_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/jsonv"
	"cockpit/metrics"
	"cockpit/session"
)

// openPaper opens a paper session (no agent) on a new root whose config.toml is cfg.
func openPaper(t *testing.T, cfg string) *session.Session {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := session.Open(session.Options{Env: session.Env{Now: time.Now, Getenv: func(string) string { return "" }, Stderr: io.Discard},
		Root: live.Root(home), Agent: "none", Approvals: "tui"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestPaperSessionScrape (issue 31 item 1, end to end): a paper session with [metrics] on
// 127.0.0.1:0 takes an order the gate allows, a halt from the operator, an order the gate
// denies for it and a dry run (not counted); a scrape of the real listener parses with the Prometheus text parser,
// serves every metric docs/metrics.md says every owner serves, and shows the two decisions,
// the halt and the state the read model holds.
func TestPaperSessionScrape(t *testing.T) {
	s := openPaper(t, "[metrics]\nlisten = \"127.0.0.1:0\"\n")
	if s.MetricsAddr() == "" {
		t.Fatal("metrics are configured but the session serves none")
	}
	ctx := context.Background()
	order := map[string]any{"symbol": "AAPL", "side": "buy", "notional": "100", "reason": "metrics test"}
	if r := s.Engine().NewTurn("strategy").Call(ctx, "place_order", order); !r.OK() {
		t.Fatalf("the first order: %+v, want it allowed", r)
	}
	if err := s.Backend().HaltBroker(session.WithOperator(ctx, "tui:test"), "metrics test"); err != nil {
		t.Fatal(err)
	}
	// The engine refuses a halted broker's orders before the gate; the gate's own refusal is
	// what an MCP client or a replayed approval meets.
	in, req := live.ExtractGeneric(jsonv.ObjectOf("symbol", "AAPL", "side", "buy", "notional", "100"))
	d := s.Gate().Submit(ctx, gate.Submission{Broker: s.Broker(), BrokerKey: s.Key(), Intent: &in, Order: req,
		Actor: live.Agent("metrics-test", s.ID())})
	if d.Verdict != live.Deny || d.Reason != live.ReasonHalted {
		t.Fatalf("the gate after the halt: %s %s, want DENY halted", d.Verdict, d.Reason)
	}
	dry := gate.Submission{Broker: s.Broker(), BrokerKey: s.Key(), Intent: &in, Order: req, Actor: live.Agent("metrics-test", s.ID()), DryRun: true}
	if d := s.Gate().Submit(ctx, dry); d.Verdict != live.Deny {
		t.Fatalf("the dry run after the halt: %s, want DENY", d.Verdict)
	}
	s.SetClients(func() []string { return []string{"mcp:claude@1", "mcp:inspector@2"} }) // as serve-mcp sets them
	s.SetSSHSessions(func() map[string]int { return map[string]int{"viewer": 1} })       // as serve-ssh sets them
	fams, body := metrics.Scrape(t, "http://"+s.MetricsAddr()+"/metrics")
	for _, d := range metrics.DocMetrics(t) {
		if _, ok := fams[d.Name]; d.Always() && !ok {
			t.Errorf("%s (documented, present %q) is not served by a paper session", d.Name, d.Present)
		}
	}
	checks := []struct {
		family string
		labels map[string]string
		want   float64
	}{
		{"cockpit_gate_decisions_total", map[string]string{"broker": "paper", "verdict": "ALLOW", "reason": "none"}, 1},
		{"cockpit_gate_decisions_total", map[string]string{"broker": "paper", "verdict": "DENY", "reason": "halted"}, 1},
		{"cockpit_gate_decision_duration_seconds", nil, 2},
		{"cockpit_halts_total", map[string]string{"source": "operator"}, 1},
		{"cockpit_halted", map[string]string{"broker": "paper", "scope": "broker"}, 1},
		{"cockpit_halted", map[string]string{"broker": "paper", "scope": "global"}, 0},
		{"cockpit_orders_today", map[string]string{"broker": "paper"}, 1},
		{"cockpit_mandate_verified", map[string]string{"broker": "paper"}, 1},
		{"cockpit_reviews", map[string]string{"state": "pending"}, 0},
		{"cockpit_broker_up", map[string]string{"broker": "paper"}, 1},
		{"cockpit_mcp_clients", nil, 2},
		{"cockpit_ssh_sessions", map[string]string{"role": "viewer"}, 1},
		{"cockpit_ssh_sessions", map[string]string{"role": "admin"}, 0},
	}
	for _, c := range checks {
		if got, ok := metrics.Value(fams[c.family], c.labels); !ok || got != c.want {
			t.Errorf("%s%v = %v (present %v), want %v", c.family, c.labels, got, ok, c.want)
		}
	}
	if n, ok := metrics.Value(fams["cockpit_audit_append_duration_seconds"], nil); !ok || n < 3 {
		t.Errorf("audit appends observed = %v, want at least the two decisions and the halt", n)
	}
	if n, ok := metrics.Value(fams["cockpit_audit_chain_length"], nil); !ok || n < 3 {
		t.Errorf("cockpit_audit_chain_length = %v, want the trail's last seq", n)
	}
	if r, ok := metrics.Value(fams["cockpit_limit_usage_ratio"], map[string]string{"limit": live.LimitTradesPerDay}); !ok || r <= 0 {
		t.Errorf("trades-per-day usage = %v (present %v), want one order's share of the cap", r, ok)
	}
	if strings.Contains(body, "AAPL") || strings.Contains(body, "tui:test") || strings.Contains(body, "ck_") {
		t.Errorf("a symbol, an operator or an order id reached the exposition:\n%s", body)
	}
	if os.Getenv("COCKPIT_METRICS_DUMP") != "" {
		t.Logf("scrape:\n%s", body)
	}
}

// TestMetricsOffByDefault: without [metrics] the session serves nothing.
func TestMetricsOffByDefault(t *testing.T) {
	if s := openPaper(t, ""); s.MetricsAddr() != "" {
		t.Errorf("metrics served at %s without [metrics] listen", s.MetricsAddr())
	}
}

// TestSessionRefusesTakenPort: a [metrics] listen address another process holds stops the
// session's start with an error naming metrics.listen, the address and what to do.
func TestSessionRefusesTakenPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	home := t.TempDir()
	cfg := "[metrics]\nlisten = \"" + ln.Addr().String() + "\"\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := session.Open(session.Options{Env: session.Env{Now: time.Now, Getenv: func(string) string { return "" }, Stderr: io.Discard},
		Root: live.Root(home), Agent: "none", Approvals: "tui"})
	if err == nil {
		s.Close()
		t.Fatal("the session started on a taken metrics port")
	}
	for _, want := range []string{"metrics.listen", ln.Addr().String(), "in use"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// TestScrapeWhileTrading: scrapes running while orders go through the gate and the operator
// halts (run under -race in CI): the counters end where the orders put them.
func TestScrapeWhileTrading(t *testing.T) {
	s := openPaper(t, "[metrics]\nlisten = \"127.0.0.1:0\"\n")
	url := "http://" + s.MetricsAddr() + "/metrics"
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default: // t.Fatal is for the test's goroutine: this one reports and stops
				resp, err := http.Get(url)
				if err != nil {
					t.Errorf("scrape during trading: %v", err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("scrape during trading: %s", resp.Status)
					return
				}
			}
		}
	}()
	ctx := context.Background()
	in, req := live.ExtractGeneric(jsonv.ObjectOf("symbol", "AAPL", "side", "buy", "notional", "50"))
	const orders = 5
	for range orders {
		s.Gate().Submit(ctx, gate.Submission{Broker: s.Broker(), BrokerKey: s.Key(), Intent: &in, Order: req, Actor: live.Agent("metrics-test", s.ID())})
	}
	if err := s.Backend().Halt(session.WithOperator(ctx, "tui:test"), "metrics test"); err != nil {
		t.Fatal(err)
	}
	close(stop)
	<-done
	fams, _ := metrics.Scrape(t, url)
	total := 0.0
	for _, m := range fams["cockpit_gate_decisions_total"].GetMetric() {
		total += m.GetCounter().GetValue()
	}
	if total != orders {
		t.Errorf("decisions counted = %v, want %d", total, orders)
	}
	if got, ok := metrics.Value(fams["cockpit_halted"], map[string]string{"scope": "global"}); !ok || got != 1 {
		t.Errorf("cockpit_halted{scope=global} = %v (present %v), want 1", got, ok)
	}
}
