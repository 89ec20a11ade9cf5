package tui

import (
	"strings"
	"testing"

	"cockpit/readmodel"
)

// TestAuditPaneFollowsNewRows (issue 28 §4): the focused audit pane follows new rows while the
// operator has not scrolled; once they scrolled, the selection stays where they put it and the
// pane says how many rows came in above ("N new").
func TestAuditPaneFollowsNewRows(t *testing.T) {
	m, _, clock := newTestModel(t, 120, 40)
	press(m, "6")
	add := func(seq int64, what string) {
		s := m.data.Snap
		s.Audit = append([]readmodel.AuditRow{{Seq: seq, Time: clock.Now(), Actor: "agent:strategy", Type: "order_placed",
			Outcome: "accepted", Summary: what}}, s.Audit...)
		m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
	}
	add(300, "#FIRST")
	if out := screen(m); !strings.Contains(out, "▶ ") || !strings.Contains(selectedLine(out), "#300") {
		t.Fatalf("the new row is not selected:\n%s", out)
	}
	press(m, "j") // the operator scrolls down one row
	add(301, "#SECOND")
	add(302, "#THIRD")
	out := screen(m)
	if strings.Contains(selectedLine(out), "#301") || strings.Contains(selectedLine(out), "#302") || !strings.Contains(out, "2 new ↑") {
		t.Errorf("after scrolling: selected %q, want the row the operator chose and \"2 new ↑\":\n%s", selectedLine(out), out)
	}
	press(m, "g") // back to the newest: following again
	add(303, "#FOURTH")
	if out := screen(m); !strings.Contains(selectedLine(out), "#303") || strings.Contains(out, "new ↑") {
		t.Errorf("back at the newest row, it does not follow:\n%s", out)
	}
}

// selectedLine is the audit pane's selected row (its box is drawn heavy while focused).
func selectedLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if i := strings.Index(l, "┃▶ "); i >= 0 {
			return l[i:]
		}
	}
	return ""
}
