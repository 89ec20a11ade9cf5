package tui

import (
	"strings"
	"testing"
)

// TestAuditLineToolAndCents: a tool_call row names its tool and dollar figures read in cents.
func TestAuditLineToolAndCents(t *testing.T) {
	tests := []struct {
		row  AuditRow
		want string
	}{
		{AuditRow{Seq: 7, Actor: "agent:strategy", Type: "tool_call", Tool: "get_quote", Outcome: "ok"}, "tool_call get_quote ok"},
		{AuditRow{Seq: 8, Actor: "agent:strategy", Type: "order_placed", Outcome: "accepted", Summary: "buy $2055.49439243 AAPL"}, "buy $2055.49 AAPL"},
		{AuditRow{Seq: 9, Actor: "agent:strategy", Type: "order_placed", Outcome: "accepted", Summary: "buy $0.995 X, $12.5 Y"}, "buy $1.00 X, $12.5 Y"},
	}
	for _, tt := range tests {
		if got := auditLine(tt.row, false); !strings.Contains(got, tt.want) {
			t.Errorf("auditLine(%+v) = %q, want it to contain %q", tt.row, got, tt.want)
		}
	}
}
