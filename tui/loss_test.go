package tui

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"cockpit/live"
	"cockpit/live/money"
)

// lossLimits gives the sample mandate a daily loss limit of $500 and a drawdown limit of 2 %,
// with the gate's last reading: $350 lost today (70 %), 0.4 % below the day's peak.
func lossLimits(m *Model, be *fakeBackend) {
	be.mu.Lock()
	s := be.snap
	md := *s.Mandate
	loss, dd := money.MustParse("500"), money.MustParse("2")
	md.Controls.MaxDailyLossUSD, md.Controls.MaxDrawdownPct = &loss, &dd
	s.Mandate = &md
	s.Loss = []live.LossGauge{
		{Limit: live.LimitDailyLoss, Value: loss, Used: money.MustParse("350"), HaltBelow: money.MustParse("99650")},
		{Limit: live.LimitDrawdown, Value: dd, Used: money.MustParse("0.4"), HaltBelow: money.MustParse("98000")},
	}
	be.snap = s // the program's polls keep reading it
	be.mu.Unlock()
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

// TestE2ELossGaugeAndTrades (issue 29 acceptance): the real program on the fake backend at
// 120×40 and 80×24 — the headroom's loss-limit gauges as the program polls them, and T's
// Trades view (drawn from the polled snapshots, no backend action); each final screen is a
// golden.
func TestE2ELossGaugeAndTrades(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		for _, tc := range []struct {
			name string
			set  func(*Model, *fakeBackend)
			key  string
			want string
		}{
			{"loss", lossLimits, "", "350.00 / 500.00"},
			{"trades", withTrades, "T", "round trip: realised +12"},
		} {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, size[0], size[1]), func(t *testing.T) {
				m, be, _ := newTestModel(t, size[0], size[1])
				tc.set(m, be)
				m.opts.Tick, m.opts.Poll = 20*time.Millisecond, 50*time.Millisecond
				tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(size[0], size[1]))
				if tc.key != "" { // the screen is up, then the key (a wait consumes the output it read)
					waitFor(t, tm, "14/20")
					tm.Send(tea.KeyPressMsg{Code: rune(tc.key[0]), Text: tc.key})
				}
				waitFor(t, tm, tc.want)
				if err := tm.Quit(); err != nil {
					t.Fatal(err)
				}
				fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
				if calls := be.Calls(); len(calls) != 0 {
					t.Errorf("the screen reached the backend for more than reads: %q", calls)
				}
				out := screen(fm)
				if !strings.Contains(out, tc.want) {
					t.Errorf("final screen lacks %q:\n%s", tc.want, out)
				}
				golden.RequireEqual(t, []byte(out))
			})
		}
	}
}
