package tui

import (
	"cockpit/readmodel"

	"strings"
	"testing"
)

// TestRemoteLine: who is connected over SSH shows under the status bar, at every layout;
// nobody connected, no line.
func TestRemoteLine(t *testing.T) {
	want := "ssh: alice@laptop (operator), bob (viewer)"
	for _, size := range [][2]int{{80, 24}, {120, 40}, {60, 20}} {
		m, be, _ := newTestModel(t, size[0], size[1])
		if got := screen(m); strings.Contains(got, "ssh:") {
			t.Fatalf("%dx%d without peers shows an ssh line:\n%s", size[0], size[1], got)
		}
		be.snap.Remote = []string{"alice@laptop (operator)", "bob (viewer)"}
		m.Update(SnapshotMsg{Snapshot: be.snap, OneOff: true})
		if got := screen(m); !strings.Contains(got, want) {
			t.Errorf("%dx%d: no %q in\n%s", size[0], size[1], want, got)
		}
	}
}

// TestRemoteQuitSaysDisconnect: over SSH the quit question says the session goes on; y
// quits this screen leaving the orders, h halts first.
func TestRemoteQuitSaysDisconnect(t *testing.T) {
	m, _, _ := newTestModel(t, 100, 30)
	m.c.Remote = true
	press(m, "q")
	got := screen(m)
	if !strings.Contains(got, "Disconnect") || !strings.Contains(got, "keeps running") || strings.Contains(got, "The agent stops") {
		t.Fatalf("remote quit question:\n%s", got)
	}
	press(m, "y")
	if m.QuitChoice() != readmodel.QuitLeave {
		t.Fatalf("y: choice %v, want QuitLeave", m.QuitChoice())
	}
}
