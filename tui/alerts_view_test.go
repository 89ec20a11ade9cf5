package tui

import (
	"strings"
	"testing"

	"cockpit/readmodel"
)

// TestAlertsCollapseAndPin: a denial stays on screen above 40 repeats of one injection
// finding, which read as one row "×40".
func TestAlertsCollapseAndPin(t *testing.T) {
	m, _, clock := newTestModel(t, 120, 40)
	trailAlerts(m, denial("strategy place_order", "mandate:exclude_symbols: GME is on the mandate exclude list"))
	for range 40 {
		clock.Advance(10e9)
		trailAlerts(m, finding("get_news", "high ignore_previous: ignore previous instructions"))
	}
	out := screen(m)
	if !strings.Contains(out, "DENIED strategy place_order") {
		t.Errorf("the denial was pushed out by the repeats:\n%s", out)
	}
	if n := strings.Count(out, "INJECTION"); n != 1 || !strings.Contains(out, "×40") {
		t.Errorf("the finding shows on %d rows, want one row ×40:\n%s", n, out)
	}
	lines := strings.Split(out, "\n")
	denied, finding := -1, -1
	for i, l := range lines {
		if strings.Contains(l, "DENIED strategy") && denied < 0 {
			denied = i
		}
		if strings.Contains(l, "INJECTION") && finding < 0 {
			finding = i
		}
	}
	if denied < 0 || finding < 0 {
		t.Fatalf("denial at line %d, finding at line %d:\n%s", denied, finding, out)
	}
}

// TestCriticalAlertsAboveInfo (issue 28 §4): alerts are newest first by when they happened, and
// a critical one (an injection finding) is never below an info row, however new the info row.
func TestCriticalAlertsAboveInfo(t *testing.T) {
	m, _, clock := newTestModel(t, 120, 40)
	trailAlerts(m, finding("get_news", "high ignore_previous: ignore previous instructions"))
	clock.Advance(10e9)
	trailAlerts(m, readmodel.TrailAlert{Level: readmodel.AlertInfo, Kind: "FLATTEN", Source: "operator", Text: "FLAT (verified 15:00:10 UTC)"})
	out := screen(m)
	if i, j := strings.Index(out, "INJECTION"), strings.Index(out, "FLAT (verified"); i < 0 || j < 0 || i > j {
		t.Errorf("the finding (at %d) is below the info row (at %d):\n%s", i, j, out)
	}
}
