package tui

import (
	"strings"
	"testing"
	"unicode/utf8"

	"cockpit/live/jsonv"
)

// owned is issue 27's repro text: a window title, a screen clear, a cursor move, a line erase;
// osc52 writes to the clipboard.
const (
	owned = "\x1b]0;OWNED\a\x1b[2J\x1b[1A\x1b[2K"
	osc52 = "\x1b]52;c;SGVsbG8=\a"
)

// TestScreenEscapesOutsideText is issue 27 item 4 for the screen: symbols and order ids from
// the broker, an SSH key comment, a review's order and reason, audit rows, the block list, the
// halt reason and fleet peers show their control characters escaped in every pane and card,
// and the frame carries none of their sequences (the screen's own styling is SGR only).
func TestScreenEscapesOutsideText(t *testing.T) {
	m, be, _ := newTestModel(t, 120, 40)
	s := be.snap
	s.Orders[0].Symbol, s.Orders[0].ID = owned, osc52+"id"
	s.Positions[0].Symbol = owned
	s.Remote = []string{owned + " (operator)"}
	s.Reviews[0].Order = jsonv.ObjectOf("side", "buy", "notional", jsonv.Number("6000"), "symbol", owned)
	s.Reviews[0].AgentReason = osc52
	s.Audit[0].Summary, s.Audit[0].Actor = "buy $6000 "+owned, "ssh:"+osc52
	s.Blocked = []string{owned}
	s.Warnings = []string{"sentinel by " + owned}
	s.Fleet = &FleetView{Host: "h1", OK: true, Why: "fleet ok", Hosts: []FleetHost{{Name: owned, State: osc52, Broker: "paper", LastEvent: owned}}}
	be.snap = s
	m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
	views := map[string][]string{"orders": {"2"}, "order details": {"2", "enter"}, "positions": {"3"}, "position details": {"3", "enter"},
		"approvals": {"4"}, "approve card": {"4", "a"}, "alerts": {"5"}, "audit": {"6"}, "audit details": {"6", "enter"}}
	for name, keys := range views {
		t.Run(name, func(t *testing.T) {
			m, _, _ := newTestModel(t, 120, 40)
			m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
			press(m, keys...)
			m.Update(TickMsg{})
			frame := m.View().Content
			for _, bad := range []string{"\x1b]", "\a", "\x1b[2J", "\x1b[1A", "\x1b[2K", "\u009b"} {
				if i := strings.Index(frame, bad); i >= 0 {
					t.Errorf("the frame holds %q at byte %d:\n%s", bad, i, frame)
				}
			}
			if !utf8.ValidString(frame) {
				t.Errorf("the frame is not UTF-8:\n%q", frame)
			}
			if !strings.Contains(frame, `\x1b]`) {
				t.Errorf("the frame shows no escaped \\x1b]:\n%s", screen(m))
			}
		})
	}
}
