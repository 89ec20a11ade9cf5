package tui

import (
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
	row := AuditRow{Seq: 7, Actor: "vibe", Type: "order_placed", Unverified: true}
	if got := auditLine(row, false); !strings.Contains(got, "#7 ✖UNVERIFIED vibe") {
		t.Errorf("audit line %q, want it marked UNVERIFIED", got)
	}
	if got := auditLine(AuditRow{Seq: 7, Actor: "vibe"}, false); strings.Contains(got, "UNVERIFIED") {
		t.Errorf("verified row %q marked UNVERIFIED", got)
	}
}
