package metrics

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// metricRef is a cockpit metric name in an expression (a histogram's series included).
var metricRef = regexp.MustCompile(`\bcockpit_[a-z0-9_]+`)

// documentedName maps a series name to its documented metric (NAME_bucket → NAME).
func documentedName(ref string, documented map[string]string) (string, bool) {
	if _, ok := documented[ref]; ok {
		return ref, true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(ref, suffix); ok && documented[base] == "histogram" {
			return base, true
		}
	}
	return "", false
}

// exprs collects every "expr" string in a decoded JSON document.
func exprs(v any, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && (k == "expr" || k == "query" || k == "definition") {
				*out = append(*out, s)
			}
			exprs(e, out)
		}
	case []any:
		for _, e := range x {
			exprs(e, out)
		}
	}
}

// TestDashboardAndAlertsUseDocumentedMetrics: the Grafana dashboard and the alert rules name
// only metrics docs/metrics.md documents (the collector test shows those are served), and the
// alerts cover a halt, a loss limit, both links and waiting reviews.
func TestDashboardAndAlertsUseDocumentedMetrics(t *testing.T) {
	documented := map[string]string{}
	for _, d := range DocMetrics(t) {
		documented[d.Name] = d.Type
	}
	data, err := os.ReadFile(filepath.Join("..", "docs", "grafana-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash map[string]any
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("docs/grafana-dashboard.json is not JSON: %v", err)
	}
	var dashExprs []string
	exprs(dash, &dashExprs)
	if len(dashExprs) < 10 {
		t.Fatalf("docs/grafana-dashboard.json: %d expressions found, want the panels' queries", len(dashExprs))
	}
	rules, err := os.ReadFile(filepath.Join("..", "docs", "alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for file, texts := range map[string][]string{"docs/grafana-dashboard.json": dashExprs, "docs/alerts.yml": {string(rules)}} {
		for _, text := range texts {
			for _, ref := range metricRef.FindAllString(text, -1) {
				name, ok := documentedName(ref, documented)
				if !ok {
					t.Errorf("%s uses %s, which docs/metrics.md does not document", file, ref)
				}
				used[name] = true
			}
		}
	}
	for _, want := range []string{"cockpit_halted", "cockpit_loss_limit_crossed", "cockpit_broker_up", "cockpit_fleet_up", "cockpit_review_oldest_pending_seconds"} {
		if !strings.Contains(string(rules), want) {
			t.Errorf("docs/alerts.yml has no rule on %s", want)
		}
	}
	var unused []string
	for name := range documented {
		if !used[name] {
			unused = append(unused, name)
		}
	}
	slices.Sort(unused)
	if len(unused) > 0 {
		t.Errorf("documented metrics neither the dashboard nor the alerts show: %v", unused)
	}
}
