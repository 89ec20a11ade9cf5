package session

import (
	"testing"

	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/readmodel"
)

func TestHaltLine(t *testing.T) {
	tests := []struct {
		name  string
		a     halt.Attribution
		scope live.Scope
		want  string
	}{
		{"touched by hand", halt.Attribution{}, live.GlobalScope, "no reason written (global)"},
		{"from the screen", halt.Attribution{Reason: "key H", By: "tui:root", TrippedAt: "2026-11-30T12:55:17Z"},
			live.BrokerScope("paper"), "key H (paper, tui:root, 12:55:17 UTC)"},
		{"unparseable time kept", halt.Attribution{Reason: "r", TrippedAt: "yesterday"}, live.BrokerScope("paper"), "r (paper, yesterday)"},
	}
	for _, tt := range tests {
		if got := readmodel.HaltLine(&tt.a, tt.scope); got != tt.want {
			t.Errorf("%s: haltLine = %q, want %q", tt.name, got, tt.want)
		}
	}
}
