package tui

import (
	"fmt"
	"strings"
	"time"

	"cockpit/live/money"
	"cockpit/live/termsafe"
)

// series keeps what the charts draw: equity and gross exposure per snapshot, prices per
// symbol, and the fills of the session.
type series struct {
	cap    int
	times  []time.Time
	equity []float64
	gross  []float64
	prices map[string][]point
	fills  []fillMark
}

type point struct {
	t  time.Time
	px float64
}

type fillMark struct {
	t    time.Time
	sym  string
	side string
	px   money.Amount
}

func newSeries(n int) series { return series{cap: n, prices: map[string][]point{}} }

func (s *series) sample(snap Snapshot, gross money.Amount) {
	if snap.Taken.IsZero() || snap.BrokerErr != "" {
		return
	}
	if n := len(s.times); n > 0 && !snap.Taken.After(s.times[n-1]) {
		return // a one-off refresh at the same moment adds no sample
	}
	s.times = trim(append(s.times, snap.Taken), s.cap)
	s.equity = trim(append(s.equity, snap.Account.Equity.Float64()), s.cap)
	s.gross = trim(append(s.gross, gross.Float64()), s.cap)
	for sym, q := range snap.Quotes {
		px := q.Last
		if px.Sign() <= 0 {
			px = q.Bid.Add(q.Ask).Div(money.FromInt(2))
		}
		s.prices[sym] = trim(append(s.prices[sym], point{snap.Taken, px.Float64()}), s.cap)
	}
}

func (s *series) fill(sym, side string, px money.Amount, at time.Time) {
	s.fills = trim(append(s.fills, fillMark{at, sym, side, px}), s.cap)
}

func trim[T any](xs []T, n int) []T {
	if len(xs) > n {
		return xs[len(xs)-n:]
	}
	return xs
}

var blocks = []rune("▁▂▃▄▅▆▇█")

// sparkline draws the last w values scaled between their min and max.
func sparkline(vals []float64, w int) string {
	if w <= 0 {
		return ""
	}
	if len(vals) > w {
		vals = vals[len(vals)-w:]
	}
	if len(vals) == 0 {
		return strings.Repeat("·", w)
	}
	lo, hi := vals[0], vals[0]
	for _, v := range vals {
		lo, hi = min(lo, v), max(hi, v)
	}
	var b strings.Builder
	for _, v := range vals {
		i := 0
		if hi > lo {
			i = int((v - lo) / (hi - lo) * float64(len(blocks)-1))
		}
		b.WriteRune(blocks[i])
	}
	return b.String() + strings.Repeat(" ", w-len(vals))
}

// chartLines draws the charts pane: equity and gross exposure over the session, then the
// selected symbol's price with the session's fills marked under it (▲ buy, ▼ sell).
func (p *headroomPane) chartLines(w int, sym string) []string {
	label := 10
	sw := w - label - 1 - scaleWidth
	if sw < 8 {
		return nil
	}
	s := &p.c.Data.Series
	last := func(xs []float64) string { return p.c.scaleLabel(xs, sw) }
	lines := []string{
		fmt.Sprintf("%-*s%s %s", label, "equity", sparkline(s.equity, sw), last(s.equity)),
		fmt.Sprintf("%-*s%s %s", label, "gross exp", sparkline(s.gross, sw), last(s.gross)),
	}
	if sym == "" {
		return lines
	}
	pts := s.prices[sym]
	if len(pts) > sw {
		pts = pts[len(pts)-sw:]
	}
	vals := make([]float64, len(pts))
	for i, p := range pts {
		vals[i] = p.px
	}
	lines = append(lines, fmt.Sprintf("%-*s%s %s", label, termsafe.Text(sym), sparkline(vals, sw), last(vals)))
	marks := []rune(strings.Repeat(" ", sw))
	for _, f := range s.fills {
		if f.sym != sym || len(pts) == 0 || f.t.Before(pts[0].t) {
			continue
		}
		i := len(pts) - 1
		for j, p := range pts {
			if !p.t.Before(f.t) {
				i = j
				break
			}
		}
		marks[i] = '▲'
		if f.side == "sell" {
			marks[i] = '▼'
		}
	}
	lines = append(lines, fmt.Sprintf("%-*s%s", label, "  fills", string(marks)))
	return lines
}
