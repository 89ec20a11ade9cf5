package tui

import (
	"cockpit/readmodel"

	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"cockpit/live"
)

// TestBrokerToolsOnScreen (DV17): the palette's tools lists the broker server's tools at
// 80x24, those the agent calls without the gate apart from the gated ones, with each gated
// tool's class and the server's read-only hint named as not trusted; a tool name from the
// server is shown escaped. Without a list it says why there may be none.
func TestBrokerToolsOnScreen(t *testing.T) {
	m, be, _ := newTestModel(t, 80, 24)
	press(m, ":", "t", "o", "o", "l", "s", "enter")
	if s := screen(m); !strings.Contains(s, "No server tools to list: paper is not an MCP broker") {
		t.Errorf("no broker tools: the list should say so:\n%s", s)
	}
	press(m, "esc")
	be.snap.Tools = []readmodel.BrokerTool{{Name: "get_equity_positions", Class: live.ClassRead},
		{Name: "place_equity_order", Class: live.ClassWrite},
		{Name: "get_market_summary", Class: live.ClassUnknown, Hinted: true},
		{Name: "evil\x1b[2Jname", Class: live.ClassUnknown}}
	m.Update(SnapshotMsg{Snapshot: be.snap, OneOff: true})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	press(m, ":", "t", "o", "o", "l", "s", "enter")
	if _, ok := m.modal.(*detailsModal); !ok {
		t.Fatalf(":tools opened %T, want the tool list", m.modal)
	}
	s := screen(m)
	for _, w := range []string{"READ, called without the gate (1):", "get_equity_positions", "Through the gate: mandate, halt, count, audit (3):",
		"place_equity_order         WRITE", "get_market_summary         UNKNOWN · hint: read-only (not trusted)", `evil\x1b[2Jname`} {
		if !strings.Contains(s, w) {
			t.Errorf("the tool list lacks %q:\n%s", w, s)
		}
	}
	if strings.Contains(s, "\x1b[2J") {
		t.Error("a server's tool name reached the screen unescaped")
	}
	read, gated := strings.Index(s, "READ, called"), strings.Index(s, "Through the gate")
	if pos := strings.Index(s, "get_market_summary"); pos < gated || read > gated {
		t.Errorf("get_market_summary is not listed under the gated tools:\n%s", s)
	}
}
