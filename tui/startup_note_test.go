package tui

import (
	"cockpit/readmodel"

	"strings"
	"testing"
)

// TestStartupNoteIsAnInfoAlert: what cockpit did before the screen came up (the default paper
// mandate it committed) is on the screen at start, as an info alert (issue 12).
func TestStartupNoteIsAnInfoAlert(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	m.Note("committed the default paper mandate mandate_abc (until 2026-12-31)")
	if got := screen(m); !strings.Contains(got, "INFO      start-up committed the default") {
		t.Errorf("the screen lacks the start-up note:\n%s", got)
	}
	a := m.data.Alerts.list[len(m.data.Alerts.list)-1]
	if a.Level != levelInfo || a.Kind != "INFO" {
		t.Errorf("got level %d kind %q, want an info alert", a.Level, a.Kind)
	}
}

// TestStartupWarningIsCritical: a start-up warning (a tampered mandate, DV13) is a critical
// alert on screen, pinned above the repeating ones.
func TestStartupWarningIsCritical(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	m.Note(readmodel.WarnNote + "the paper mandate is TAMPERED: every order is denied")
	if got := screen(m); !strings.Contains(got, "start-up the paper mandate is TAMPERED") {
		t.Errorf("the screen lacks the warning:\n%s", got)
	}
	a := m.data.Alerts.list[len(m.data.Alerts.list)-1]
	if a.Level != levelCrit || a.Kind != "WARN" || !pinned(a) {
		t.Errorf("got level %d kind %q pinned %v, want a pinned critical alert", a.Level, a.Kind, pinned(a))
	}
}
