package tui

import (
	"strings"
	"testing"
)

// TestHaltScopes: H and :halt halt the whole root (Backend.Halt); :halt broker halts only this
// broker (Backend.HaltBroker) — issue 10 item 5.
func TestHaltScopes(t *testing.T) {
	m, be, _ := newTestModel(t, 120, 40)
	typeText := func(s string) {
		for _, r := range s {
			press(m, string(r))
		}
	}
	run(m, press(m, "H"))
	press(m, ":")
	typeText("halt broker only this one")
	run(m, press(m, "enter"))
	want := "halt key H\nhalt broker only this one"
	if got := calls(be); got != want {
		t.Fatalf("calls %q, want %q", got, want)
	}
}

// TestSnapshotWarningsAreAlerts: a warning in the snapshot (an unrecognised sentinel) is
// raised as an alert once.
func TestSnapshotWarningsAreAlerts(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	s := m.data.Snap
	s.Warnings = []string{"unrecognised sentinel /r/live/PAPER/HALT"}
	m.data.onSnapshot(s)
	m.data.onSnapshot(s)
	n := 0
	for _, a := range m.data.Alerts.list {
		if strings.Contains(a.Text, "live/PAPER/HALT") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d alerts for the warning, want 1", n)
	}
}
