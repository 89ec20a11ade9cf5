package tui

import (
	"strings"
	"testing"

	"cockpit/live/money"
)

// TestPositionsShowRealisedAndTotalPnL: where the pane is wide enough, a position shows its
// realised and total P&L beside the unrealised; narrower panes keep the unrealised only.
func TestPositionsShowRealisedAndTotalPnL(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	m.data.Snap.Positions[0].RealizedPnL = money.MustParse("-40.50") // AAPL: +26.00 unrealised
	p := m.panes.positions
	cases := []struct {
		w          int
		want, lack []string
	}{
		{100, []string{"rPnL", "tot P&L", "+26.00      -40.50      -14.50"}, nil},
		{80, []string{"uPnL", "+26.00"}, []string{"rPnL", "-40.50"}},
		{60, []string{"uPnL", "+26.00"}, []string{"rPnL", "-40.50"}},
	}
	for _, c := range cases {
		p.SetSize(c.w, 8)
		out := stripped(p.View())
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("width %d: lacks %q:\n%s", c.w, w, out)
			}
		}
		for _, l := range c.lack {
			if strings.Contains(out, l) {
				t.Errorf("width %d: has %q, want only the unrealised:\n%s", c.w, l, out)
			}
		}
		for _, line := range strings.Split(out, "\n") {
			if n := len([]rune(line)); n != c.w {
				t.Errorf("width %d: a line is %d cells: %q", c.w, n, line)
			}
		}
	}
}
