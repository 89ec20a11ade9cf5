package main

import (
	"strings"
	"testing"
)

// TestRunnerRegistryWrappingDV17: an unmapped tool the server hints read-only is plain in the
// oracle and gated in cockpit (or, halted, left out): the runner tags exactly that DV17; any
// other difference (a mapped order tool the oracle offers plain, a tool missing) still fails.
func TestRunnerRegistryWrappingDV17(t *testing.T) {
	const tools = `"tools": [{"name": "place_equity_order", "readOnlyHint": null}, {"name": "get_news", "readOnlyHint": true}]`
	tests := []struct {
		name, halted, expected string
		wantDV17               bool
	}{
		{"hinted tool gated", "false", `[{"tool": "place_equity_order", "wrapper": "gated", "broker": "robinhood"},
			{"tool": "get_news", "wrapper": "plain_readonly", "broker": null}]`, true},
		{"hinted tool left out when halted", "true", `[{"tool": "get_news", "wrapper": "plain_readonly", "broker": null}]`, true},
		{"an order tool offered plain is no deviation", "false", `[{"tool": "place_equity_order", "wrapper": "plain_readonly", "broker": null},
			{"tool": "get_news", "wrapper": "plain_readonly", "broker": null}]`, false},
		{"a missing tool is no deviation", "false", `[{"tool": "get_news", "wrapper": "plain_readonly", "broker": null}]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := `{"registry_wrapping": [{"id": "x", "server_key": "robinhood", "url": "", "broker_halted": ` + tt.halted + `, ` + tools +
				`, "expected": ` + tt.expected + `}]}`
			sum, out := runVectors(t, map[string]string{"live.json": c})
			if tt.wantDV17 && (sum.Failed != 0 || sum.Deviations != 1 || !strings.Contains(out, "DV17 1")) {
				t.Errorf("failed %d, deviations %d, want 0 and 1 tagged DV17\n%s", sum.Failed, sum.Deviations, out)
			}
			if !tt.wantDV17 && (sum.Failed != 1 || sum.Deviations != 0) {
				t.Errorf("failed %d, deviations %d, want 1 and 0\n%s", sum.Failed, sum.Deviations, out)
			}
		})
	}
}
