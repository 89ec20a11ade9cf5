package main

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestQuickReportsEveryFigure runs `cockpit-bench --quick --json` once: every step reports its
// figures, each present and positive, and nothing failed.
func TestQuickReportsEveryFigure(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole quick bench")
	}
	var out, errOut bytes.Buffer
	code := run([]string{"--quick", "--json"}, &out, &errOut)
	var rep Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("exit %d, output is not a report: %v\n%s\n%s", code, err, out.String(), errOut.String())
	}
	if code != 0 || len(rep.Errors) > 0 {
		t.Fatalf("exit %d, errors %v", code, rep.Errors)
	}
	want := []string{"check --batch", "CheckMandate per call", "position rows", "one JSONL line", "redaction, nested payload",
		"scanner", "durable gate, sequential", "durable gate, sequential, p99", "4 agents on 4 brokers", "HALT → first cancel",
		"HALT → verified FLAT", "audit append", "audit verify", "screen page query", "View()",
		"durable gate + saved paper account, history", "serve-mcp order, history", "serve-mcp start-up to a connected client",
		"start-up to first frame", "start-up to trading", "fsync probe, p50", "fsync probe, p99", "two-fsync bound",
		"durable gate / two-fsync bound", "peak RSS"}
	for _, w := range want {
		found := false
		for _, f := range rep.Figures {
			if len(f.Name) >= len(w) && f.Name[:len(w)] == w {
				found = true
				if !(f.Value > 0) {
					t.Errorf("%s = %v %s, want a positive number", f.Name, f.Value, f.Unit)
				}
			}
		}
		if !found {
			t.Errorf("no figure %q in the report", w)
		}
	}
	for _, f := range rep.Figures {
		if !(f.Value > 0) {
			t.Errorf("%s = %v, want a positive number", f.Name, f.Value)
		}
	}
}
