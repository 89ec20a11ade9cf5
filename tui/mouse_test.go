package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// cellOf finds text on the screen: its first cell (x, y), left of column maxX when maxX > 0.
func cellOf(t *testing.T, out, text string, maxX int) (int, int) {
	t.Helper()
	for y, line := range strings.Split(out, "\n") {
		r := []rune(line)
		for x := 0; x+len([]rune(text)) <= len(r); x++ {
			if string(r[x:x+len([]rune(text))]) == text && (maxX <= 0 || x < maxX) {
				return x, y
			}
		}
	}
	t.Fatalf("%q is not on the screen:\n%s", text, out)
	return 0, 0
}

func click(m *Model, x, y int) { m.Update(tea.MouseClickMsg{X: x, Y: y, Button: tea.MouseLeft}) }

// TestClickFocusesAndSelects: a click on a row of a pane focuses the pane and selects the
// row; the footer and the ▶ marker say so. Read from the screen, not from the layout.
func TestClickFocusesAndSelects(t *testing.T) {
	m, be, _ := newTestModel(t, 120, 40)
	out := screen(m)
	if m.focus != paneHeadroom {
		t.Fatalf("focus %d at start, want the headroom", m.focus)
	}
	x, y := cellOf(t, out, "TSLA ", 60) // the positions pane, left column
	click(m, x+1, y)
	out = screen(m)
	if m.focus != panePositions {
		t.Errorf("focus %d after the click, want the positions pane", m.focus)
	}
	if !strings.Contains(out, "▶ TSLA") {
		t.Errorf("the clicked row is not selected:\n%s", out)
	}
	if !strings.Contains(out, "x close") {
		t.Errorf("the footer lacks the positions pane's keys:\n%s", out)
	}
	// An orders row: the order under the pointer, not the first.
	x, y = cellOf(t, out, "P000014", 60)
	click(m, x, y)
	if out = screen(m); m.focus != paneOrders || !strings.Contains(out, "▶ P000014") {
		t.Errorf("focus %d; want the orders pane with P000014 selected:\n%s", m.focus, out)
	}
	// A click on a review selects it and does nothing else: no approval by click.
	x, y = cellOf(t, out, "ap_0002", 0) // ap_0001 is on the reviews banner too
	click(m, x, y)
	if m.focus != paneApprovals {
		t.Errorf("focus %d, want the approvals pane", m.focus)
	}
	if calls := be.Calls(); len(calls) != 0 {
		t.Errorf("a click reached the backend: %q", calls)
	}
}

// TestWheelScrollsThePaneUnderThePointer: the wheel moves the selection of the pane under the
// pointer (focusing it), and of the focused pane when the pointer is on no pane.
func TestWheelScrollsThePaneUnderThePointer(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	out := screen(m)
	x, y := cellOf(t, out, "P000012", 60)
	m.Update(tea.MouseWheelMsg{X: x, Y: y, Button: tea.MouseWheelDown})
	if out = screen(m); m.focus != paneOrders || !strings.Contains(out, "▶ P000014") {
		t.Errorf("focus %d; want the orders pane scrolled to its last order:\n%s", m.focus, out)
	}
	m.Update(tea.MouseWheelMsg{X: 5, Y: 0, Button: tea.MouseWheelUp}) // the status bar: the focused pane
	if out = screen(m); !strings.Contains(out, "▶ P000012") {
		t.Errorf("the wheel over the status bar did not scroll the focused pane:\n%s", out)
	}
}

// TestClickTabsWhenNarrow: at 80×24 one pane shows under a tab bar; a click on a tab
// focuses (and shows) that pane.
func TestClickTabsWhenNarrow(t *testing.T) {
	m, _, _ := newTestModel(t, 80, 24)
	out := screen(m)
	x, y := cellOf(t, out, "3 Positions", 0)
	click(m, x, y)
	if out = screen(m); m.focus != panePositions || !strings.Contains(out, "AAPL") || !strings.Contains(out, "uPnL") {
		t.Errorf("focus %d; want the positions pane shown:\n%s", m.focus, out)
	}
}

// TestMouseOffAndOverModals: the mouse is on by default and off with NoMouse; over an open
// modal a click does nothing.
func TestMouseOffAndOverModals(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	if got := m.View().MouseMode; got != tea.MouseModeCellMotion {
		t.Errorf("mouse mode %v by default, want cell motion", got)
	}
	press(m, "?")
	out := screen(m)
	x, y := cellOf(t, out, "TSLA ", 40)
	click(m, x, y)
	if m.focus != paneHeadroom {
		t.Errorf("a click under the help moved the focus to %d", m.focus)
	}
	off, err := New(Options{Backend: &fakeBackend{snap: sampleSnapshot(t)}, Theme: "no-color", NoMouse: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := off.View().MouseMode; got != tea.MouseModeNone {
		t.Errorf("mouse mode %v with NoMouse, want none", got)
	}
	off.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	off.Update(SnapshotMsg{Snapshot: sampleSnapshot(t), OneOff: true})
	out = screen(off)
	x, y = cellOf(t, out, "TSLA ", 60)
	click(off, x, y)
	if off.focus != paneHeadroom {
		t.Errorf("a click moved the focus with the mouse off")
	}
}
