package vibeattach

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"cockpit/tui"
)

var tmpPath = regexp.MustCompile(`/tmp/\S*`)

// attachedFrame is the screen's plain text at w×h, temporary paths scrubbed.
func attachedFrame(t *testing.T, m *tui.Model, w, h int) []byte {
	t.Helper()
	m.Update(tui.TickMsg{})
	out := ansi.Strip(m.View().Content)
	for i, l := range strings.Split(out, "\n") {
		if ansi.StringWidth(l) > w || i >= h {
			t.Fatalf("line %d does not fit %dx%d:\n%s", i, w, h, out)
		}
	}
	return []byte(tmpPath.ReplaceAllString(out, "<root>"))
}

// TestAttachedScreenGoldens (issue 28 §3): the screen attached to a Vibe-Trading root at
// 120×40 and 80×24: attached (the status bar says so and which actions exist), halted by H,
// and after X y (HALT written, cancel and close not run: no broker access).
func TestAttachedScreenGoldens(t *testing.T) {
	for _, size := range []struct{ w, h int }{{120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			root, clock := fixture(t)
			be := newBackend(root, clock)
			m, err := tui.New(tui.Options{Backend: be, Now: clock.Now, Theme: "no-color"})
			if err != nil {
				t.Fatal(err)
			}
			m.Update(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			snap := func() { m.Update(tui.SnapshotMsg{Snapshot: be.Snapshot(context.Background()), OneOff: true}) }
			snap()
			t.Run("attached", func(t *testing.T) { golden.RequireEqual(t, attachedFrame(t, m, size.w, size.h)) })
			run(m, press(m, "H"))
			snap()
			t.Run("halted", func(t *testing.T) { golden.RequireEqual(t, attachedFrame(t, m, size.w, size.h)) })
			press(m, "X")
			run(m, press(m, "y"))
			snap()
			t.Run("after_flatten", func(t *testing.T) { golden.RequireEqual(t, attachedFrame(t, m, size.w, size.h)) })
		})
	}
}
