package tui

import (
	"cockpit/readmodel"

	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// TestFleetOnScreen: without a fleet nothing says fleet; with one the status bar counts its
// hosts, a down fleet shows "fleet DOWN" and an alert naming fleet_unavailable, and the
// palette's fleet lists every host's heartbeat.
func TestFleetOnScreen(t *testing.T) {
	m, be, _ := newTestModel(t, 120, 40)
	if s := screen(m); strings.Contains(s, "fleet") {
		t.Fatalf("no fleet configured, but the screen mentions one:\n%s", s)
	}
	be.snap.Fleet = &readmodel.FleetView{Host: "desk1", OK: true, Why: "fleet ok", Hosts: []readmodel.FleetHost{
		{Name: "desk1", State: "ACTIVE", Broker: "paper", Orders: 3, LastEvent: "order_placed", Lag: 40 * time.Millisecond},
		{Name: "desk2", State: "HALTED", Broker: "paper", Orders: 7, LastEvent: "halt_tripped", Lag: 1200 * time.Millisecond}}}
	m.Update(SnapshotMsg{Snapshot: be.snap, OneOff: true})
	m.Update(tea.WindowSizeMsg{Width: 180, Height: 40})
	if s := screen(m); !strings.Contains(s, "fleet 2 hosts") {
		t.Errorf("status bar lacks the fleet segment:\n%s", strings.SplitN(s, "\n", 2)[0])
	}
	press(m, ":", "f", "l", "e", "e", "t", "enter")
	if _, ok := m.modal.(*fleetModal); !ok {
		t.Fatalf(":fleet opened %T, want the fleet list", m.modal)
	}
	s := screen(m)
	for _, w := range []string{"desk1", "desk2", "HALTED", "halt_tripped", "1.2s"} {
		if !strings.Contains(s, w) {
			t.Errorf("the fleet list lacks %q:\n%s", w, s)
		}
	}
	press(m, "esc")
	if m.modal != nil {
		t.Fatalf("esc left %T open", m.modal)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40}) // narrower: a down fleet still shows
	be.snap.Fleet = &readmodel.FleetView{Host: "desk1", Why: "fleet RECONNECTING"}
	m.Update(SnapshotMsg{Snapshot: be.snap, OneOff: true})
	s = screen(m)
	if !strings.Contains(s, "fleet DOWN") || !strings.Contains(s, "fleet_unavailable") {
		t.Errorf("a down fleet is not on screen (want fleet DOWN and the fleet_unavailable alert):\n%s", s)
	}
}
