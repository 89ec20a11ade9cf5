package tui

import (
	"cockpit/readmodel"

	"strings"
	"testing"
)

// TestAuditLineToolAndCents: a tool_call row names its tool and dollar figures read in cents.
func TestAuditLineToolAndCents(t *testing.T) {
	tests := []struct {
		row  readmodel.AuditRow
		want string
	}{
		{readmodel.AuditRow{Seq: 7, Actor: "agent:strategy", Type: "tool_call", Tool: "get_quote", Outcome: "ok"}, "tool_call get_quote ok"},
		{readmodel.AuditRow{Seq: 8, Actor: "agent:strategy", Type: "order_placed", Outcome: "accepted", Summary: "buy $2055.49439243 AAPL"}, "buy $2055.49 AAPL"},
		{readmodel.AuditRow{Seq: 9, Actor: "agent:strategy", Type: "order_placed", Outcome: "accepted", Summary: "buy $0.995 X, $12.5 Y"}, "buy $1.00 X, $12.5 Y"},
	}
	for _, tt := range tests {
		if got := auditLine(tt.row, false); !strings.Contains(got, tt.want) {
			t.Errorf("auditLine(%+v) = %q, want it to contain %q", tt.row, got, tt.want)
		}
	}
}

// TestAuditDetailsWrapLongWords: a long summary, even one unbroken word, is wrapped in the
// audit drawer instead of running past its column.
func TestAuditDetailsWrapLongWords(t *testing.T) {
	word := strings.Repeat("abcdefghij", 15)
	lines := auditDetails(readmodel.AuditRow{Seq: 1, Type: "tool_call", Summary: "see " + word + " end"})
	if joined := strings.Join(lines, "\n"); !strings.Contains(joined, "abcdefghij") || !strings.Contains(joined, "end") {
		t.Fatalf("summary lost:\n%s", joined)
	}
	for _, l := range lines {
		if n := len([]rune(l)); n > 88 {
			t.Errorf("line %q is %d wide, want ≤ 88", l, n)
		}
	}
}
