package tui

import (
	"fmt"

	"github.com/charmbracelet/x/ansi"

	"cockpit/live/money"
)

// pnlAmt is a P&L amount with its sign and cents below 100k, so a $7 loss is never "100.0k".
func (c *Common) pnlAmt(a money.Amount) string {
	if c.Privacy {
		return "•••"
	}
	s := fmtMoney(a, 2)
	if a.Abs().Cmp(money.FromInt(100000)) >= 0 {
		s = short(a)
	}
	if a.Sign() > 0 {
		s = "+" + s
	}
	return s
}

// pnlLine is the day's P&L (the equity now against the equity at the UTC day's first
// snapshot, absolute and %; "—" when no equity was read today), the open positions' realised
// and unrealised P&L, and the equity delta since the session started.
func (p *headroomPane) pnlLine(w int) string {
	c, v := p.c, p.c.Data.View()
	unreal := money.Zero
	for _, pos := range v.Positions {
		unreal = unreal.Add(pos.UnrealizedPnL)
	}
	rest := "  real " + c.pnlAmt(v.Realized) + "  unreal " + c.pnlAmt(unreal)
	if !v.StartEquity.IsZero() {
		rest += "  Δstart " + c.pnlAmt(v.Account.Equity.Sub(v.StartEquity))
	}
	if v.DayEquity.Sign() <= 0 {
		return fit("Day P&L —"+rest, w)
	}
	day := v.Account.Equity.Sub(v.DayEquity)
	head := "Day P&L " + c.pnlAmt(day)
	if pct := fmt.Sprintf(" (%+.2f%%)", day.Float64()/v.DayEquity.Float64()*100); !c.Privacy && ansi.StringWidth(head+pct+rest) <= w {
		head += pct // the percent when there is room for it
	}
	switch day.Sign() {
	case 1:
		head = c.Styles.Profit.Render(head)
	case -1:
		head = c.Styles.Loss.Render(head)
	}
	return fit(head+rest, w)
}

// scaleWidth is the room right of a sparkline: the last value and the height's span.
const scaleWidth = 22

// scaleLabel is the last value drawn, exact to the cent, and "↕" the span the sparkline's
// height stands for (max − min of what it draws), so a $1 move that fills the height says so.
func (c *Common) scaleLabel(xs []float64, w int) string {
	if len(xs) == 0 {
		return "—"
	}
	if len(xs) > w {
		xs = xs[len(xs)-w:]
	}
	lo, hi := xs[0], xs[0]
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	amt := func(f float64) money.Amount { return money.MustParse(fmt.Sprintf("%.2f", f)) }
	if c.Privacy {
		return "•••"
	}
	return fmt.Sprintf("%s ↕%s", fmtMoney(amt(xs[len(xs)-1]), 2), fmtMoney(amt(hi-lo), 2))
}

// moneyLines is the bottom of the headroom pane in room lines: the P&L line, then the charts
// (the fills line goes first when room is short).
func (p *headroomPane) moneyLines(w, room int) []string {
	if room < 1 {
		return nil
	}
	var out []string
	ch := p.chartLines(w, p.chartSymbol())
	if room >= len(ch)+2 {
		out = append(out, "")
	}
	out = append(out, p.pnlLine(w))
	if room -= len(out); room >= 2 {
		out = append(out, ch[:min(len(ch), room)]...)
	}
	return out
}
