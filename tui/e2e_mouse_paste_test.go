package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// TestE2EPasteIntoDenyReason: in the running program, a bracketed paste into the deny
// reason line arrives as text, and the denial carries it.
func TestE2EPasteIntoDenyReason(t *testing.T) {
	tm, be := e2e(t)
	waitFor(t, tm, "orders 14/20")
	tm.Send(tea.KeyPressMsg{Code: '4', Text: "4"})
	tm.Send(tea.KeyPressMsg{Code: 'd', Text: "d"})
	waitFor(t, tm, "Reason (optional)")
	tm.Send(tea.PasteMsg{Content: "price ran away"})
	waitFor(t, tm, "price ran away")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	tm.Send(tea.KeyPressMsg{Code: 'y', Text: "y"})
	teatest.WaitFor(t, tm.Output(), func([]byte) bool {
		be.mu.Lock()
		defer be.mu.Unlock()
		return len(be.denyWhy) > 0
	}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	be.mu.Lock()
	defer be.mu.Unlock()
	if len(be.denyWhy) != 1 || !strings.HasSuffix(be.denyWhy[0], ": price ran away") {
		t.Errorf("deny reasons %q, want the pasted text", be.denyWhy)
	}
}

// TestE2EClickFocusesAPane: in the running program, a click on a positions row (where the
// same screen shows it) moves the focus there and selects the row.
func TestE2EClickFocusesAPane(t *testing.T) {
	ref, _, _ := newTestModel(t, 120, 40) // the same screen, to find where the row is drawn
	x, y := cellOf(t, screen(ref), "TSLA ", 60)
	tm, _ := e2e(t)
	waitFor(t, tm, "orders 14/20")
	tm.Send(tea.MouseClickMsg{X: x + 1, Y: y, Button: tea.MouseLeft})
	waitFor(t, tm, "▶ TSLA")
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	if out := screen(fm); fm.focus != panePositions || !strings.Contains(out, "▶ TSLA") {
		t.Errorf("focus %d; want the positions pane with TSLA selected:\n%s", fm.focus, out)
	}
}
