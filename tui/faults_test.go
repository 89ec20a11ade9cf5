package tui

import (
	"cockpit/readmodel"

	"strings"
	"testing"
)

// TestSnapshotFaultsAreCriticalAlerts: a fault in the snapshot (a broken audit chain) is
// raised once as a critical alert; an unverified audit row says so on its line.
func TestSnapshotFaultsAreCriticalAlerts(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	s := m.data.Snap
	s.Faults = []string{"audit chain broken at line 2"}
	m.data.onSnapshot(s)
	m.data.onSnapshot(s)
	n := 0
	for _, a := range m.data.Alerts.list {
		if strings.Contains(a.Text, "audit chain broken") {
			n++
			if a.Level != levelCrit {
				t.Errorf("alert level %v, want critical", a.Level)
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d alerts for the fault, want 1", n)
	}
	row := readmodel.AuditRow{Seq: 7, Actor: "vibe", Type: "order_placed", Unverified: true}
	if got := auditLine(row, false); !strings.Contains(got, "#7 ✖UNVERIFIED vibe") {
		t.Errorf("audit line %q, want it marked UNVERIFIED", got)
	}
	if got := auditLine(readmodel.AuditRow{Seq: 7, Actor: "vibe"}, false); strings.Contains(got, "UNVERIFIED") {
		t.Errorf("verified row %q marked UNVERIFIED", got)
	}
}

// TestHeadroomUnknownWhenBookNotRead: with the broker unread and no positions, the exposure
// gauges say unknown, not 0%; the day count stays a number.
func TestHeadroomUnknownWhenBookNotRead(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	s := m.data.Snap
	s.BrokerErr, s.Positions, s.Orders = "connection refused", nil, nil
	m.data.onSnapshot(s)
	got := map[string]string{}
	for _, g := range m.panes.headroom.gauges() {
		got[g.label] = g.text
		if want := g.label != "trades today" && g.label != "mandate expiry"; strings.HasPrefix(g.text, "? / ") != want {
			t.Errorf("%s: %q, want unknown %v", g.label, g.text, want)
		}
	}
	if !strings.HasPrefix(got["total exposure"], "? / ") || !strings.HasSuffix(got["total exposure"], "(book not read)") {
		t.Errorf("total exposure %q, want \"? / <cap> (book not read)\"", got["total exposure"])
	}
	if strings.HasPrefix(got["trades today"], "?") {
		t.Errorf("trades today %q, want a count", got["trades today"])
	}
	if strip := stripped(m.panes.headroom.headroomStrip()); !strings.Contains(strip, "exp ?") {
		t.Errorf("strip %q, want exp ?", strip)
	}
}
