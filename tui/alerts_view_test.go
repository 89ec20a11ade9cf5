package tui

import (
	"strings"
	"testing"

	"cockpit/engine"
)

// TestAlertsCollapseAndPin: a denial stays on screen above 40 repeats of one injection
// finding, which read as one row "×40".
func TestAlertsCollapseAndPin(t *testing.T) {
	m, _, clock := newTestModel(t, 120, 40)
	m.Update(EngineMsg(engine.Event{Gen: 1, Kind: engine.EvToolCall, Agent: "strategy", Tool: "place_order",
		Result: &engine.Result{Status: engine.StatusDenied, Decision: "deny", Code: "mandate:exclude_symbols", Detail: "GME is on the mandate exclude list"}}))
	for range 40 {
		clock.Advance(10e9)
		m.Update(EngineMsg(engine.Event{Gen: 1, Kind: engine.EvFinding, Tool: "get_news",
			Finding: &engine.Finding{RuleID: "ignore_previous", Severity: "high", Match: "ignore previous instructions"}}))
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
	if denied > finding {
		t.Errorf("the denial (line %d) is not pinned above the finding (line %d):\n%s", denied, finding, out)
	}
}
