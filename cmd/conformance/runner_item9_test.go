package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cockpit/live/jsonv"
)

// runVectors writes the given files into a fresh directory and runs the runner on it.
func runVectors(t *testing.T, files map[string]string) (Summary, string) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	sum, err := Run(dir, &out, false)
	if err != nil {
		t.Fatal(err)
	}
	return sum, out.String()
}

// TestRunnerComparesOnlyWhatTheCaseGives: a bash case that gives stdout_len and no stdout is
// compared on the length; a wrong length fails.
func TestRunnerComparesOnlyWhatTheCaseGives(t *testing.T) {
	tests := []struct {
		name, cases string
		failed      int
	}{
		{"length only", `[{"command": "printf abc", "status": "ok", "exit_code": 0, "stdout_len": 3}]`, 0},
		{"wrong length", `[{"command": "printf abc", "status": "ok", "exit_code": 0, "stdout_len": 4}]`, 1},
		{"stream given", `[{"command": "printf abc", "status": "ok", "exit_code": 0, "stdout": "abd"}]`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sum, out := runVectors(t, map[string]string{"security.json": `{"bash_tool_envelopes": ` + tt.cases + `}`})
			if sum.Failed != tt.failed {
				t.Errorf("failed = %d, want %d\n%s", sum.Failed, tt.failed, out)
			}
		})
	}
}

// TestRunnerClipsDiagnostics: a failure over a 50,000-character stream prints a readable line.
func TestRunnerClipsDiagnostics(t *testing.T) {
	cases := `[{"command": "head -c 50000 /dev/zero | tr '\\0' a", "status": "ok", "exit_code": 0, "stdout": "b"}]`
	sum, out := runVectors(t, map[string]string{"security.json": `{"bash_tool_envelopes": ` + cases + `}`})
	if sum.Failed != 1 {
		t.Fatalf("failed = %d, want 1\n%.2000s", sum.Failed, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if got := len([]rune(line)); got > 1000 {
			t.Errorf("a %d-character line in the report, want at most 1000", got)
		}
	}
}

// TestRunnerLifetimeDays: a proposal commit with lifetime_days 0 expires one day after it
// was made (reference C6: max(1, lifetime_days)); 7 gives seven days.
func TestRunnerLifetimeDays(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(conformanceDir(t), "live.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonv.Parse(data, jsonv.Options{NonFinite: true})
	if err != nil {
		t.Fatal(err)
	}
	root := doc.(*jsonv.Object)
	commits, _ := root.Get("mandate_commit")
	var basic *jsonv.Object
	for _, c := range commits.([]any) {
		if id, _ := c.(*jsonv.Object).Get("id"); id == "basic" {
			basic = c.(*jsonv.Object)
		}
	}
	if basic == nil {
		t.Skip("no mandate_commit case \"basic\" in the vectors")
	}
	base, err := jsonv.MarshalString(basic, jsonv.Python)
	if err != nil {
		t.Fatal(err)
	}
	const thirty = "2026-07-01T15:00:00.123456Z"
	if !strings.Contains(base, thirty) {
		t.Skip("case \"basic\" no longer expires at " + thirty)
	}
	tests := []struct {
		days, expires string
	}{
		{"0", "2026-06-02T15:00:00.123456Z"},
		{"-3", "2026-06-02T15:00:00.123456Z"},
		{"7", "2026-06-08T15:00:00.123456Z"},
	}
	for _, tt := range tests {
		t.Run(tt.days, func(t *testing.T) {
			c := strings.ReplaceAll(base, thirty, tt.expires)
			c = strings.Replace(c, `"call": {`, `"call": {"lifetime_days": `+tt.days+`, `, 1)
			sum, out := runVectors(t, map[string]string{"live.json": `{"mandate_commit": [` + c + `]}`})
			if sum.Failed != 0 || sum.Passed != 1 {
				t.Errorf("passed %d, failed %d, want 1 and 0\n%s", sum.Passed, sum.Failed, out)
			}
		})
	}
}

// TestRunnerFlattenWithoutOrderID: the reference cancels an open order without an id with
// order_id null; cockpit sends nothing and reports NOT FLAT, and the runner tags it DV16.
func TestRunnerFlattenWithoutOrderID(t *testing.T) {
	c := `{"flatten": [{"id": "null_id", "open_orders": [{"order_id": null}], "positions": [], "fail_on": [],
	 "allow_flatten": null, "mandate_flatten_on_halt": null, "expected": {"report": {"broker": "robinhood",
	 "cancelled_order_ids": [null], "flatten_orders_submitted": [], "flatten_skipped_reason": "mandate forbids flatten (cancel-only)",
	 "errors": []}, "submitted": [{"action": "cancel", "order_id": null}], "audit": [{"kind": "order_placed",
	 "outcome": "accepted", "remote_tool": "cancel_equity_order", "intent_normalized": "cancel order None",
	 "broker_request": {"action": "cancel", "order_id": null}, "error": null, "session_id": "live-runtime"}]}}]}`
	sum, out := runVectors(t, map[string]string{"live.json": c})
	if sum.Failed != 0 || sum.Deviations != 1 || !strings.Contains(out, "DV16 1") {
		t.Errorf("failed %d, deviations %d, want 0 and 1 tagged DV16\n%s", sum.Failed, sum.Deviations, out)
	}
}
