package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// TestCloseAndBlock: x offers "close and block"; b blocks the symbol first, then closes;
// y still only closes.
func TestCloseAndBlock(t *testing.T) {
	tests := []struct {
		keys []string
		want string
	}{
		{[]string{"3", "x", "b"}, "block AAPL operator closed and blocked AAPL from the screen\nclose AAPL"},
		{[]string{"3", "x", "y"}, "close AAPL"},
		{[]string{"3", "x", "n"}, ""},
	}
	for _, tt := range tests {
		m, be, _ := newTestModel(t, 120, 40)
		for _, k := range tt.keys {
			run(m, press(m, k))
		}
		if got := calls(be); got != tt.want {
			t.Errorf("%v: calls %q, want %q", tt.keys, got, tt.want)
		}
	}
}

// TestUnblockCommand: :unblock SYMBOL takes the symbol off the block list.
func TestUnblockCommand(t *testing.T) {
	m, be, _ := newTestModel(t, 120, 40)
	press(m, ":")
	for _, r := range "unblock aapl" {
		press(m, string(r))
	}
	run(m, press(m, "enter"))
	if got, want := calls(be), "unblock AAPL command :unblock AAPL"; got != want {
		t.Errorf("calls %q, want %q", got, want)
	}
}

// TestBlockedInStatusBar: the block list is on the status bar at every supported width.
func TestBlockedInStatusBar(t *testing.T) {
	for _, w := range []int{120, 80} {
		m, _, _ := newTestModel(t, w, 24)
		s := m.data.Snap
		s.Blocked = []string{"AAPL"}
		m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
		if top := strings.SplitN(screen(m), "\n", 2)[0]; !strings.Contains(top, "⊘ blocked AAPL") {
			t.Errorf("%d wide: status bar %q lacks the block list", w, top)
		}
	}
}

func TestCloseBlockGoldens(t *testing.T) {
	blocked := func(m *Model) {
		s := m.data.Snap
		s.Blocked = []string{"AAPL"}
		m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
	}
	tests := []struct {
		name  string
		w, h  int
		setup func(m *Model)
	}{
		{"close_modal", 120, 40, func(m *Model) { press(m, "3", "x") }},
		{"close_modal_narrow", 80, 24, func(m *Model) { press(m, "3", "x") }},
		{"blocked", 120, 40, blocked},
		{"blocked_narrow", 80, 24, blocked},
		{"deny_reason", 120, 40, func(m *Model) { press(m, "4", "d", "t", "o", "o") }},
		{"deny_reason_narrow", 80, 24, func(m *Model) { press(m, "4", "d") }},
		{"deny_confirm_narrow", 80, 24, func(m *Model) { press(m, "4", "d", "o", "k", "enter") }},
		{"flatten_preview_live", 80, 24, func(m *Model) {
			press(m, "X")
			s := m.data.Snap
			s.Orders, s.Positions = s.Orders[:1], s.Positions[:1]
			m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _, _ := newTestModel(t, tt.w, tt.h)
			tt.setup(m)
			out := screen(m)
			for i, l := range strings.Split(out, "\n") {
				if n := len([]rune(l)); n > tt.w {
					t.Errorf("line %d is %d wide, the screen is %d", i, n, tt.w)
				}
			}
			golden.RequireEqual(t, out)
		})
	}
}

// TestFlattenPreviewIsLive: the preview counts what the latest snapshot holds, not what was
// on screen when X was pressed.
func TestFlattenPreviewIsLive(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	press(m, "X")
	s := m.data.Snap
	s.Orders = s.Orders[:1]
	s.Positions = s.Positions[:1]
	m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
	out := screen(m)
	for _, want := range []string{"Cancel 1 resting order ", "Close 1 position "} {
		if !strings.Contains(out, want) {
			t.Errorf("flatten preview lacks %q after the snapshot changed:\n%s", want, out)
		}
	}
}

// TestDenyReason: d opens an optional reason line; enter ends it (empty skips the reason)
// and y denies; a typed reason is recorded; enter alone, n and esc deny nothing.
func TestDenyReason(t *testing.T) {
	tests := []struct {
		typed  string
		finish string
		want   []string
	}{
		{"", "enter y", []string{"denied from the cockpit"}},
		{"too big", "enter y", []string{"denied from the cockpit: too big"}},
		{"Hm", "enter", nil}, // enter never confirms
		{"Hm", "esc", nil},
		{"", "enter n", nil},
	}
	for _, tt := range tests {
		m, be, _ := newTestModel(t, 120, 40)
		press(m, "4", "d")
		for _, r := range tt.typed {
			run(m, press(m, string(r)))
		}
		for _, k := range strings.Fields(tt.finish) {
			run(m, press(m, k))
		}
		if got := strings.Join(be.denyWhy, "|"); got != strings.Join(tt.want, "|") {
			t.Errorf("typed %q then %s: deny reasons %q, want %q", tt.typed, tt.finish, be.denyWhy, tt.want)
		}
	}
}
