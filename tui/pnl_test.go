package tui

import (
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/money"
)

// pnlLoss: a session down $7.12 on 100k (a realised −2.00 and an open −5.12), its equity
// sampled a few times so the sparkline has a shape (issue 12).
func pnlLoss(m *Model, _ *fakeBackend) {
	s := m.data.Snap
	s.StartEquity, s.DayEquity, s.Realized = money.MustParse("100000"), money.MustParse("100000"), money.MustParse("-2.00")
	s.Positions = []live.Position{
		{Symbol: "AAPL", Qty: money.MustParse("20"), AvgPrice: money.MustParse("191.60"), MarketValue: money.MustParse("3828.00"), UnrealizedPnL: money.MustParse("-4.00"), RealizedPnL: money.MustParse("-2.00")},
		{Symbol: "TSLA", Qty: money.MustParse("-5"), AvgPrice: money.MustParse("244.0260"), MarketValue: money.MustParse("-1221.25"), UnrealizedPnL: money.MustParse("-1.12")},
	}
	for _, eq := range []string{"100000", "99998.50", "99995", "99996.20", "99992.88"} {
		s.Taken = s.Taken.Add(time.Second)
		s.Account.Equity = money.MustParse(eq)
		m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
	}
}

func TestPnLShowsASmallLoss(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		m, be, _ := newTestModel(t, size[0], size[1])
		pnlLoss(m, be)
		out := screen(m)
		for _, want := range []string{"Day P&L -7.12", "real -2.00", "unreal -5.12", "Δstart -7.12", "99,992.88 ↕36.87"} {
			if !strings.Contains(out, want) {
				t.Errorf("%dx%d: got no %q in\n%s", size[0], size[1], want, out)
			}
		}
		if size[0] == 80 && !strings.Contains(out, "Day P&L -7.12 (-0.01%)") { // room for the percent
			t.Errorf("80x24: no percent on the day P&L:\n%s", out)
		}
		if strings.Contains(out, "100.0k") && !strings.Contains(out, "/ 100.0k") {
			t.Errorf("%dx%d: equity still rounded to 100.0k", size[0], size[1])
		}
	}
}

func TestScaleLabelSaysTheSpan(t *testing.T) {
	c := &Common{}
	tests := []struct {
		xs   []float64
		w    int
		want string
	}{
		{nil, 10, "—"},
		{[]float64{100000, 99999}, 10, "99,999.00 ↕1.00"},
		{[]float64{5, 100000, 99999}, 2, "99,999.00 ↕1.00"}, // only what is drawn
	}
	for _, tt := range tests {
		if got := c.scaleLabel(tt.xs, tt.w); got != tt.want {
			t.Errorf("scaleLabel(%v, %d) = %q, want %q", tt.xs, tt.w, got, tt.want)
		}
	}
}

// TestDayPnLIsAgainstTheDayStart: the day P&L is the equity against the day's first
// snapshot, not the positions' lifetime P&L; with no equity read today it says "—".
func TestDayPnLIsAgainstTheDayStart(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	s := m.data.Snap
	s.StartEquity, s.DayEquity, s.Realized = money.MustParse("99000"), money.MustParse("100050"), money.MustParse("-500")
	m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
	if out := screen(m); !strings.Contains(out, "Day P&L -20.25  real -500.00  unreal +29.75  Δstart" /* the percent when there is room */) {
		t.Errorf("want the day P&L against 100,050:\n%s", out)
	}
	s.DayEquity = money.Zero
	m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
	if out := screen(m); !strings.Contains(out, "Day P&L —  real -500.00") {
		t.Errorf("want an unknown day P&L:\n%s", out)
	}
}
