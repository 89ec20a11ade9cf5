package tui

import (
	"strings"
	"testing"

	"cockpit/readmodel"
)

// TestCancelledCallIsNotADenial: a call cut off at stop or quit shows as a cancelled info
// alert, not as a DENIED one pinned with the refusals (issue 12).
func TestCancelledCallIsNotADenial(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	trailAlerts(m, readmodel.TrailAlert{Level: readmodel.AlertInfo, Kind: "CANCELLED", Source: "strategy place_order",
		Text: "cancelled: the call was cancelled before it ran: context canceled"})
	out := screen(m)
	if strings.Contains(out, "DENIED") {
		t.Errorf("a cancelled call shows as DENIED:\n%s", out)
	}
	if !strings.Contains(out, "CANCELLED strategy place_order") {
		t.Errorf("the screen lacks the cancelled call:\n%s", out)
	}
	for _, a := range m.data.Alerts.list {
		if a.Kind == "DENIED" || a.Level != levelInfo || pinned(a) {
			t.Errorf("got alert %+v, want one unpinned info alert", a)
		}
	}
}
