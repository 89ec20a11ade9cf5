package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"cockpit/live"
	"cockpit/live/livetest"
)

// viewerBackend is a backend whose operator may only halt (an SSH viewer key).
type viewerBackend struct{ *fakeBackend }

func (viewerBackend) Allows(action string) bool { return action == "halt" || action == "halt broker" }

// TestScreenOffersOnlyWhatTheRoleMay (issue 28 §3): a screen whose backend says its operator
// may only halt offers no X, U, a/d or c/C on the footer or the halt banner, and X then y
// neither opens the flatten nor draws "HALT ✓ / Cancel ✓ none / Close ✓ none".
func TestScreenOffersOnlyWhatTheRoleMay(t *testing.T) {
	clock := livetest.NewClock(livetest.Epoch)
	be := viewerBackend{&fakeBackend{snap: sampleSnapshot(t)}}
	m, err := New(Options{Backend: be, Now: clock.Now, Theme: "no-color"})
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	s := be.snap
	s.State = live.Halted
	m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
	for _, keys := range []string{"", "2", "4"} {
		if keys != "" {
			press(m, keys)
		}
		out := screen(m)
		for _, offer := range []string{"X flatten", "U resume", "a/d/D", "c/C"} {
			if strings.Contains(out, offer) {
				t.Errorf("pane %q: a viewer's screen offers %q:\n%s", keys, offer, out)
			}
		}
	}
	press(m, "X", "y")
	out := screen(m)
	if strings.Contains(out, "✓ none") || strings.Contains(out, "FLATTEN —") || !strings.Contains(out, "may not flatten") {
		t.Errorf("X, y on a viewer's screen:\n%s", out)
	}
}
