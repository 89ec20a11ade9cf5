package tui

import (
	"strings"
	"testing"

	"cockpit/engine"
)

// TestDetailsDrawer: enter opens the selected order's drawer; esc closes it.
func TestDetailsDrawer(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	press(m, "2", "enter")
	out := screen(m)
	for _, want := range []string{"Orders P000012", "Client id:  ckP000012", "c cancel · j/k scroll · esc close"} {
		if !strings.Contains(out, want) {
			t.Errorf("drawer lacks %q:\n%s", want, out)
		}
	}
	press(m, "esc")
	if m.modal != nil {
		t.Error("esc left the drawer open")
	}
}

// TestDetailsDrawerScrolls: a drawer longer than the screen scrolls in its viewport and
// keeps its key line on screen.
func TestDetailsDrawerScrolls(t *testing.T) {
	m, _, _ := newTestModel(t, 100, 24)
	m.Update(EngineMsg(engine.Event{Gen: 1, Kind: engine.EvError, Agent: "strategy", Message: strings.Repeat("0123456789", 150)}))
	press(m, "5", "enter")
	out := screen(m)
	if !strings.Contains(out, "Time:") || !strings.Contains(out, "j/k scroll · esc close") {
		t.Fatalf("drawer:\n%s", out)
	}
	press(m, "j")
	if out := screen(m); strings.Contains(out, "Time:") || !strings.Contains(out, "Kind:   ERROR") {
		t.Errorf("j did not scroll one line:\n%s", out)
	}
}
