package tui

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"cockpit/live"
	"cockpit/live/money"
)

// lossLimits gives the sample mandate a daily loss limit of $500 and a drawdown limit of 2 %,
// with the gate's last reading: $350 lost today (70 %), 0.4 % below the day's peak.
func lossLimits(m *Model, _ *fakeBackend) {
	s := m.data.Snap
	md := *s.Mandate
	loss, dd := money.MustParse("500"), money.MustParse("2")
	md.Controls.MaxDailyLossUSD, md.Controls.MaxDrawdownPct = &loss, &dd
	s.Mandate = &md
	s.Loss = []live.LossGauge{
		{Limit: live.LimitDailyLoss, Value: loss, Used: money.MustParse("350"), HaltBelow: money.MustParse("99650")},
		{Limit: live.LimitDrawdown, Value: dd, Used: money.MustParse("0.4"), HaltBelow: money.MustParse("98000")},
	}
	m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
}

// TestLossLimitGauges (issue 29 §1): the headroom pane shows each loss limit as a gauge (used /
// limit), at 120×40 and 80×24; an equity the gate could not read shows the limits as unknown,
// never as zero used.
func TestLossLimitGauges(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m, be, _ := newTestModel(t, size[0], size[1])
			lossLimits(m, be)
			out := screen(m)
			for _, want := range []string{"350.00 / 500.00", "0.4% / 2%"} {
				if !strings.Contains(out, want) {
					t.Errorf("headroom lacks %q:\n%s", want, out)
				}
			}
			golden.RequireEqual(t, []byte(out))
			s := m.data.Snap
			s.Loss, s.LossErr = nil, errors.New("account unreadable").Error()
			m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
			if out := screen(m); !strings.Contains(out, "daily loss") || strings.Count(out, "? UNKN") < 2 {
				t.Errorf("an unreadable equity does not show the limits as unknown:\n%s", out)
			}
		})
	}
}
