package tui

import (
	"cockpit/readmodel"

	"bytes"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// e2e starts the real program on the fake backend at 120×40.
func e2e(t *testing.T) (*teatest.TestModel, *fakeBackend) {
	t.Helper()
	m, be, _ := newTestModel(t, 120, 40)
	m.opts.Tick, m.opts.Poll = 20*time.Millisecond, 50*time.Millisecond
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	return tm, be
}

func waitFor(t *testing.T, tm *teatest.TestModel, text string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(text)) },
		teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
}

// TestE2EHaltThenQuit: the program starts, H halts (the bar says so), q then h quits with
// the halt choice; the final screen is the golden.
func TestE2EHaltThenQuit(t *testing.T) {
	tm, be := e2e(t)
	waitFor(t, tm, "orders 14/20")
	tm.Send(tea.KeyPressMsg{Code: 'H', Text: "H"})
	waitFor(t, tm, "HALTED")
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	waitFor(t, tm, "Quit cockpit")
	tm.Send(tea.KeyPressMsg{Code: 'h', Text: "h"})
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	if fm.QuitChoice() != readmodel.QuitHalt {
		t.Errorf("quit choice %v", fm.QuitChoice())
	}
	if got := strings.Join(be.Calls(), ","); got != "halt key H" {
		t.Errorf("calls %q", got)
	}
	golden.RequireEqual(t, screen(fm))
}

// TestE2EFlatten: X then y runs the flatten and ends on the verified result.
func TestE2EFlatten(t *testing.T) {
	tm, be := e2e(t)
	waitFor(t, tm, "orders 14/20")
	tm.Send(tea.KeyPressMsg{Code: 'X', Text: "X"})
	waitFor(t, tm, "Verify with the broker")
	tm.Send(tea.KeyPressMsg{Code: 'y', Text: "y"})
	waitFor(t, tm, "FLAT (verified 15:00:00 UTC)")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.Send(tea.KeyPressMsg{Code: 'y', Text: "y"})
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	if fm.QuitChoice() != readmodel.QuitLeave || !strings.Contains(strings.Join(be.Calls(), ","), "flatten") {
		t.Errorf("choice %v calls %v", fm.QuitChoice(), be.Calls())
	}
	golden.RequireEqual(t, screen(fm))
}
