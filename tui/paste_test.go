package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestPasteIntoFilter: a bracketed paste into the pane filter is typed, not dropped.
func TestPasteIntoFilter(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	press(m, "2", "/")
	m.Update(tea.PasteMsg{Content: "msft"})
	press(m, "enter")
	out := screen(m)
	if !strings.Contains(out, "/msft") || !strings.Contains(out, "P000013") || strings.Contains(out, "P000012") {
		t.Errorf("pasted filter not applied:\n%s", out)
	}
}

// TestPasteIntoForm: a paste replaces nothing but types into the field being edited, and the
// committed document carries it.
func TestPasteIntoForm(t *testing.T) {
	m, be, _ := newTestModel(t, 120, 40)
	press(m, "M", "n", "down") // max order
	for i := 0; i < 4; i++ {
		press(m, "backspace")
	}
	m.Update(tea.PasteMsg{Content: "2500"})
	press(m, "ctrl+s")
	m.Update(tea.PasteMsg{Content: "paper"})
	run(m, press(m, "enter"))
	if got := calls(be); !strings.Contains(got, `"max_order_notional_usd":2500`) || !strings.HasPrefix(got, "commit 30 paper {") {
		t.Errorf("commit %q", got)
	}
}

// TestPasteWithoutFieldDoesNothing: with no text field open a paste is never read as keys
// (a pasted "H" or "y" acts on nothing).
func TestPasteWithoutFieldDoesNothing(t *testing.T) {
	m, be, _ := newTestModel(t, 120, 40)
	press(m, "X")
	m.Update(tea.PasteMsg{Content: "yH"})
	if got := calls(be); got != "" {
		t.Errorf("a paste ran %q", got)
	}
}
