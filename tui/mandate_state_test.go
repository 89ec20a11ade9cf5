package tui

import (
	"strings"
	"testing"

	"cockpit/live"
)

// TestTamperedMandateIsCritical (DV13): a mandate the gate will not use is a critical
// message on screen, in the status bar and the headroom pane, not a set of limits.
func TestTamperedMandateIsCritical(t *testing.T) {
	tests := []struct {
		state      live.MandateState
		detail     string
		bar, panel string
	}{
		{live.MandateTampered, "TAMPERED: mandate.json differs from the mandate last committed",
			"mandate TAMPERED (orders denied)", "mandate TAMPERED: mandate.json differs"},
		{live.MandateUnverified, "UNVERIFIED: no commit of this mandate is recorded",
			"mandate UNVERIFIED (orders denied)", "mandate UNVERIFIED: no commit"},
	}
	for _, tt := range tests {
		t.Run(string(tt.state), func(t *testing.T) {
			m, be, _ := newTestModel(t, 160, 48)
			s := be.snap
			s.Mandate, s.MandateState, s.MandateErr = nil, tt.state, tt.detail
			m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
			got := screen(m)
			for _, want := range []string{tt.bar, tt.panel} {
				if !strings.Contains(got, want) {
					t.Errorf("screen has no %q:\n%s", want, got)
				}
			}
		})
	}
}
