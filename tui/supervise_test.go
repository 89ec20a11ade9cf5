package tui

import (
	"strings"
	"testing"
)

// TestSupervisingBanner (issue 14): a screen attached to another process's account says so
// at 80×24 — who owns it, or that the owner is gone (the broker segment too); a halt's banner
// takes the line while halted.
func TestSupervisingBanner(t *testing.T) {
	m, _, _ := newTestModel(t, 80, 24)
	tests := []struct {
		name      string
		sup       string
		gone      bool
		want      []string
		notInView string
	}{
		{"own process", "", false, nil, "SUPERVISING"},
		{"owner alive", "SUPERVISING serve-mcp pid 1234 (mcp:claude-desktop@1.2)", false,
			[]string{"SUPERVISING serve-mcp pid 1234 (mcp:claude-desktop@1.2)"}, "owner gone"},
		{"owner gone", "SUPERVISING — OWNER GONE (serve-mcp pid 1234: no heartbeat for 9s)", true,
			[]string{"OWNER GONE (serve-mcp pid 1234", "owner gone"}, ""},
	}
	for _, tt := range tests {
		s := m.data.Snap
		s.Supervising, s.OwnerGone = tt.sup, tt.gone
		m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
		view := screen(m)
		lines := strings.Split(view, "\n")
		if len(lines) != 24 {
			t.Errorf("%s: %d lines, want 24", tt.name, len(lines))
		}
		for _, w := range tt.want {
			if !strings.Contains(view, w) {
				t.Errorf("%s: view lacks %q:\n%s", tt.name, w, view)
			}
		}
		if tt.gone && !strings.Contains(lines[0], "owner gone") {
			t.Errorf("%s: status line %q lacks owner gone", tt.name, lines[0])
		}
		if tt.notInView != "" && strings.Contains(view, tt.notInView) {
			t.Errorf("%s: view shows %q:\n%s", tt.name, tt.notInView, view)
		}
	}
}
