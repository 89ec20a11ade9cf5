// Package metrics exposes a root owner's figures to Prometheus (issue 31 item 1): decisions,
// latencies and counts the process sees as they happen, and state (halts, the day's count,
// headroom, reviews, links) read from the one read model at scrape time. It owns a private
// registry; nothing here is on the gate's path but counter and histogram updates.
package metrics

import (
	"context"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"cockpit/engine/scan"
	"cockpit/live"
)

// Metrics holds the registry and the figures counted as they happen.
type Metrics struct {
	reg         *prometheus.Registry
	decisions   *prometheus.CounterVec
	gateLatency prometheus.Histogram
	halts       *prometheus.CounterVec
	findings    *prometheus.CounterVec
	disables    prometheus.Counter
	lossCross   *prometheus.CounterVec
	appendLat   prometheus.Histogram
	reserveLat  prometheus.Histogram
}

// latencyBuckets span a paper order's fraction of a millisecond to a slow live broker.
var latencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5}

// New makes the registry with every event metric; State adds the scrape-time ones.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.decisions = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cockpit_gate_decisions_total",
		Help: "Decisions the gate made (orders, and cancels and reductions through its operator path; dry runs excluded), by broker, verdict and reason code."}, []string{"broker", "verdict", "reason"})
	m.gateLatency = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "cockpit_gate_decision_duration_seconds",
		Help: "Time from an order entering the gate to its audited decision.", Buckets: latencyBuckets})
	m.halts = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cockpit_halts_total",
		Help: "Halts this process recorded, by source (operator, external, agent, or the cockpit subsystem)."}, []string{"source"})
	m.findings = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cockpit_scanner_findings_total",
		Help: "Prompt-injection scanner findings in outside content, by rule."}, []string{"rule"})
	m.disables = prometheus.NewCounter(prometheus.CounterOpts{Name: "cockpit_plugin_disables_total",
		Help: "Times the WASM plugin agent was disabled."})
	m.lossCross = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cockpit_loss_limit_crossings_total",
		Help: "Loss limits crossed (the broker was halted), by limit."}, []string{"limit"})
	m.appendLat = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "cockpit_audit_append_duration_seconds",
		Help: "Time to append (and commit) audit events to the hash-chained trail.", Buckets: latencyBuckets})
	m.reserveLat = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "cockpit_fleet_reservation_duration_seconds",
		Help: "Time to reserve a slot of the fleet's shared day count.", Buckets: latencyBuckets})
	m.reg.MustRegister(m.decisions, m.gateLatency, m.halts, m.findings, m.disables, m.lossCross, m.appendLat, m.reserveLat)
	// The known label values start at 0, so a rate() or an alert sees the series before the
	// first event (Prometheus' own advice), and the documentation test sees every family.
	for _, src := range HaltSources {
		m.halts.WithLabelValues(src)
	}
	for _, r := range scan.Rules {
		m.findings.WithLabelValues(r.ID)
	}
	for _, l := range []string{live.LimitDailyLoss, live.LimitDrawdown} {
		m.lossCross.WithLabelValues(l)
	}
	return m
}

// HaltSources are the sources cockpit_halts_total starts with: the operator (screen, SSH, MCP
// operator), a file written from outside (the CLI, touch), the halt watcher, a loss limit,
// on_quit and a halt mirrored from the fleet.
var HaltSources = []string{"operator", "external", "watcher", "loss-limit", "on_quit", "fleet"}

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Timeout: 10 * time.Second})
}

// Register adds a collector (the scrape-time state) to the registry.
func (m *Metrics) Register(c prometheus.Collector) error { return m.reg.Register(c) }

// Decision counts one gate decision and its latency (end is the gate's clock after it).
func (m *Metrics) Decision(broker string, verdict live.Verdict, reason live.Reason, started, end time.Time) {
	if m == nil {
		return
	}
	r := string(reason)
	if r == "" {
		r = "none"
	}
	m.decisions.WithLabelValues(Label(broker), Label(string(verdict)), Label(r)).Inc()
	if !started.IsZero() && !end.Before(started) {
		m.gateLatency.Observe(end.Sub(started).Seconds())
	}
}

// AuditAppend observes one append to the audit trail.
func (m *Metrics) AuditAppend(d time.Duration) {
	if m != nil {
		m.appendLat.Observe(d.Seconds())
	}
}

// Reservation observes one reservation of the fleet's day count.
func (m *Metrics) Reservation(d time.Duration) {
	if m != nil {
		m.reserveLat.Observe(d.Seconds())
	}
}

// Label returns v when it is a short code (a letter, then up to 47 letters, digits, '_', '.',
// ':' or '-'), else "other": no label carries free text, an id with spaces or a secret, and
// the series stay bounded. A loop, not a regexp: it runs on every decision.
func Label(v string) string {
	if len(v) == 0 || len(v) > 48 || !letter(v[0]) {
		return "other"
	}
	for i := 1; i < len(v); i++ {
		c := v[i]
		if !letter(c) && (c < '0' || c > '9') && c != '_' && c != '.' && c != ':' && c != '-' {
			return "other"
		}
	}
	return v
}

func letter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// ctxTimeout bounds one scrape's reads.
func ctxTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, 5*time.Second)
}
