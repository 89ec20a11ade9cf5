package metrics

import (
	"context"
	"math"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"cockpit/live"
	"cockpit/live/jsonv"
)

// scrapeOf exposes m on an httptest server and scrapes it once.
func scrapeOf(t *testing.T, m *Metrics) (map[string]*dto.MetricFamily, string) {
	t.Helper()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	return Scrape(t, srv.URL)
}

// TestDecisionMovesCounters: an ALLOW and a DENY with its reason code each count once under
// their labels, and both land in the latency histogram.
func TestDecisionMovesCounters(t *testing.T) {
	m := New()
	t0 := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	m.Decision("paper", live.Allow, "", t0, t0.Add(3*time.Millisecond))
	m.Decision("paper", live.Deny, live.ReasonHalted, t0, t0.Add(time.Millisecond))
	m.Decision("paper", live.Deny, live.ReasonHalted, t0, t0.Add(time.Millisecond))
	fams, _ := scrapeOf(t, m)
	cases := []struct {
		labels map[string]string
		want   float64
	}{
		{map[string]string{"broker": "paper", "verdict": "ALLOW", "reason": "none"}, 1},
		{map[string]string{"broker": "paper", "verdict": "DENY", "reason": "halted"}, 2},
	}
	for _, c := range cases {
		if got, ok := Value(fams["cockpit_gate_decisions_total"], c.labels); !ok || got != c.want {
			t.Errorf("cockpit_gate_decisions_total%v = %v (present %v), want %v", c.labels, got, ok, c.want)
		}
	}
	h := fams["cockpit_gate_decision_duration_seconds"].GetMetric()[0].GetHistogram()
	if got, want := h.GetSampleCount(), uint64(3); got != want {
		t.Errorf("latency histogram count = %d, want %d", got, want)
	}
	if got, want := h.GetSampleSum(), 0.005; math.Abs(got-want) > 1e-9 {
		t.Errorf("latency histogram sum = %v, want %v", got, want)
	}
}

// TestLabelBounded: label values are short codes; free text, ids with spaces, long strings
// and empty values become "other".
func TestLabelBounded(t *testing.T) {
	cases := []struct{ in, want string }{
		{"halted", "halted"},
		{"max_order_notional_usd", "max_order_notional_usd"},
		{"PAUSE_FOR_REAUTH", "PAUSE_FOR_REAUTH"},
		{"loss-limit", "loss-limit"},
		{"", "other"},
		{"buy $100 AAPL", "other"},
		{"sk-" + strings.Repeat("x", 60), "other"},
		{"1abc", "other"},
		{"a\nb", "other"},
	}
	for _, c := range cases {
		if got := Label(c.in); got != c.want {
			t.Errorf("Label(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestSinkCounts: the audit sink counts halts by source (no person's name), scanner findings
// by known rule (an unknown id is "other"), plugin disables and loss-limit crossings, and
// never fails.
func TestSinkCounts(t *testing.T) {
	m := New()
	s := Sink{M: m}
	ctx := context.Background()
	recs := []live.AuditRecord{
		{Kind: live.KindHaltTripped, Actor: live.Operator("alice", "s1")},
		{Kind: live.KindHaltTripped, Actor: live.System("watcher", "s1")},
		{Kind: live.KindHaltTripped, Actor: live.Principal{Kind: live.ActorExternal, ID: "external"}},
		{Kind: live.KindHaltCleared, Actor: live.Operator("alice", "s1")},
		{Kind: KindPluginDisabled},
		{Kind: live.KindLossLimitCrossed, Decision: &live.GateDecision{Limit: live.LimitDailyLoss}},
		{Kind: live.KindToolCall, Detail: jsonv.ObjectOf("security_warnings", []any{
			jsonv.ObjectOf("rule_id", "instruction_override"), jsonv.ObjectOf("rule_id", "made up rule")})},
	}
	for _, r := range recs {
		if err := s.Record(ctx, r); err != nil {
			t.Fatalf("Record(%s) = %v, want nil", r.Kind, err)
		}
	}
	fams, body := scrapeOf(t, m)
	cases := []struct {
		family string
		labels map[string]string
		want   float64
	}{
		{"cockpit_halts_total", map[string]string{"source": "operator"}, 1},
		{"cockpit_halts_total", map[string]string{"source": "watcher"}, 1},
		{"cockpit_halts_total", map[string]string{"source": "external"}, 1},
		{"cockpit_halts_total", map[string]string{"source": "loss-limit"}, 0},
		{"cockpit_plugin_disables_total", nil, 1},
		{"cockpit_loss_limit_crossings_total", map[string]string{"limit": live.LimitDailyLoss}, 1},
		{"cockpit_loss_limit_crossings_total", map[string]string{"limit": live.LimitDrawdown}, 0},
		{"cockpit_scanner_findings_total", map[string]string{"rule": "instruction_override"}, 1},
		{"cockpit_scanner_findings_total", map[string]string{"rule": "other"}, 1},
		{"cockpit_scanner_findings_total", map[string]string{"rule": "tool_abuse"}, 0},
	}
	for _, c := range cases {
		if got, ok := Value(fams[c.family], c.labels); !ok || got != c.want {
			t.Errorf("%s%v = %v (present %v), want %v", c.family, c.labels, got, ok, c.want)
		}
	}
	if strings.Contains(body, "alice") {
		t.Errorf("an operator's name reached the exposition:\n%s", body)
	}
}

// fullState is a state with every case on: a fleet, loss limits read, reviews, clients.
func fullState() State {
	return State{Broker: "paper", Halted: map[string]bool{"global": true}, OrdersToday: 3, OrdersCap: 10, HasMandate: true,
		Usage:       map[string]float64{live.LimitTradesPerDay: 0.3, live.LimitDailyLoss: 0.5},
		LossCrossed: map[string]bool{live.LimitDailyLoss: false, live.LimitDrawdown: true},
		Reviews:     map[string]int{"pending": 2, "approved": 5}, OldestPending: 90 * time.Second,
		BrokerUp: true, BrokerLatency: 20 * time.Millisecond, Fleet: true, FleetUp: true, ChainLength: 42, MCPClients: 1,
		SSHSessions: map[string]int{"operator": 2}}
}

// TestEveryDocumentedMetricOnACollector: fed every case (a fleet, loss limits, reviews), the
// registry serves every metric docs/metrics.md names, with the documented type; and nothing
// undocumented.
func TestEveryDocumentedMetricOnACollector(t *testing.T) {
	m := New()
	st := fullState()
	if err := m.Register(Collector{Read: func(context.Context) State { return st }}); err != nil {
		t.Fatal(err)
	}
	m.Decision("paper", live.Allow, "", time.Time{}, time.Time{})
	fams, _ := scrapeOf(t, m)
	docs := DocMetrics(t)
	documented := map[string]bool{}
	for _, d := range docs {
		documented[d.Name] = true
		f, ok := fams[d.Name]
		if !ok {
			t.Errorf("%s is documented but not served", d.Name)
			continue
		}
		if got := strings.ToLower(f.GetType().String()); got != d.Type {
			t.Errorf("%s is a %s, documented as a %s", d.Name, got, d.Type)
		}
	}
	for name := range fams {
		if !documented[name] {
			t.Errorf("%s is served but not in docs/metrics.md", name)
		}
	}
	checks := []struct {
		family string
		labels map[string]string
		want   float64
	}{
		{"cockpit_halted", map[string]string{"broker": "paper", "scope": "global"}, 1},
		{"cockpit_halted", map[string]string{"broker": "paper", "scope": "broker"}, 0},
		{"cockpit_halted", map[string]string{"broker": "paper", "scope": "latch"}, 0},
		{"cockpit_orders_today", map[string]string{"broker": "paper"}, 3},
		{"cockpit_orders_today_limit", map[string]string{"broker": "paper"}, 10},
		{"cockpit_limit_usage_ratio", map[string]string{"limit": live.LimitTradesPerDay}, 0.3},
		{"cockpit_loss_limit_crossed", map[string]string{"limit": live.LimitDrawdown}, 1},
		{"cockpit_reviews", map[string]string{"state": "pending"}, 2},
		{"cockpit_reviews", map[string]string{"state": "timed_out"}, 0},
		{"cockpit_review_oldest_pending_seconds", nil, 90},
		{"cockpit_fleet_up", nil, 1},
		{"cockpit_ssh_sessions", map[string]string{"role": "operator"}, 2},
		{"cockpit_ssh_sessions", map[string]string{"role": "viewer"}, 0},
		{"cockpit_mcp_clients", nil, 1},
		{"cockpit_audit_chain_length", nil, 42},
	}
	for _, c := range checks {
		if got, ok := Value(fams[c.family], c.labels); !ok || got != c.want {
			t.Errorf("%s%v = %v (present %v), want %v", c.family, c.labels, got, ok, c.want)
		}
	}
}

// TestStateLeavesOutWhatIsUnknown: without a fleet there is no fleet_up (a 0 would page as a
// link down); without a mandate no cap or headroom; an unreadable review table is absent, not 0.
func TestStateLeavesOutWhatIsUnknown(t *testing.T) {
	m := New()
	if err := m.Register(Collector{Read: func(context.Context) State { return State{Broker: "paper"} }}); err != nil {
		t.Fatal(err)
	}
	fams, _ := scrapeOf(t, m)
	for _, name := range []string{"cockpit_fleet_up", "cockpit_orders_today_limit", "cockpit_limit_usage_ratio", "cockpit_loss_limit_crossed",
		"cockpit_reviews", "cockpit_review_oldest_pending_seconds"} {
		if _, ok := fams[name]; ok {
			t.Errorf("%s is served for a state that does not know it", name)
		}
	}
	if got, ok := Value(fams["cockpit_mandate_verified"], nil); !ok || got != 0 {
		t.Errorf("cockpit_mandate_verified = %v (present %v), want 0", got, ok)
	}
}

// TestServePortInUse: a taken port stops the start with an error naming the key and value.
func TestServePortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = Serve(ln.Addr().String(), New(), nil)
	if err == nil {
		t.Fatal("Serve on a taken port: nil error")
	}
	for _, want := range []string{"metrics.listen", ln.Addr().String(), "in use"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// TestServeAndClose: Serve on port 0 serves /metrics and Close ends it.
func TestServeAndClose(t *testing.T) {
	s, err := Serve("127.0.0.1:0", New(), nil)
	if err != nil {
		t.Fatal(err)
	}
	fams, _ := Scrape(t, "http://"+s.Addr()+"/metrics")
	if _, ok := fams["cockpit_plugin_disables_total"]; !ok {
		t.Errorf("the served registry lacks cockpit_plugin_disables_total")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if c, err := net.Dial("tcp", s.Addr()); err == nil {
		c.Close()
		t.Errorf("%s still accepts after Close", s.Addr())
	}
}
