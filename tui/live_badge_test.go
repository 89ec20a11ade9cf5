package tui

import (
	"strings"
	"testing"
)

// TestLiveBadgeIsLoud: a live broker's status bar says LIVE · REAL MONEY (no colour needed to
// see it), and still LIVE on a narrow terminal; a paper one says PAPER.
func TestLiveBadgeIsLoud(t *testing.T) {
	for _, tc := range []struct {
		name  string
		live  bool
		width int
		want  string
	}{
		{"live wide", true, 160, "LIVE · REAL MONEY"},
		{"live narrow", true, 60, " LIVE "},
		{"paper", false, 160, " PAPER "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, be, _ := newTestModel(t, tc.width, 40)
			be.snap.Live = tc.live
			m.Update(SnapshotMsg{Snapshot: be.snap, OneOff: true})
			top := strings.SplitN(screen(m), "\n", 2)[0]
			if !strings.Contains(top, tc.want) {
				t.Fatalf("top line %q lacks %q", top, tc.want)
			}
			if !tc.live && strings.Contains(top, "LIVE") {
				t.Fatalf("a paper top line says LIVE: %q", top)
			}
		})
	}
}
