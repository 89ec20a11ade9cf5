package tui

import (
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"cockpit/live/money"
	"cockpit/live/termsafe"
	"cockpit/readmodel"
)

// tradesModal is the Trades view (T): the UTC day's fills of the broker with the realised P&L
// of each round trip they closed, read from the one read model (Snapshot.Trades: the numbers
// `cockpit trades` prints), so it follows new fills while open.
type tradesModal struct {
	c   *Common
	pos int // the first fill shown
}

func (*tradesModal) Typing() bool { return false }

// tradesHead is the fills table's header; tradeRow lays one fill out under it.
const tradesHead = "TIME     SIDE SYMBOL   QTY       PRICE      FEE     REALISED    POSITION"

func (tm *tradesModal) View(w, h int) string {
	s := &tm.c.Data.Snap
	dt := s.Trades
	title := "Trades — " + termsafe.Text(s.Broker) + " — " + dt.Day.Format(time.DateOnly) + " (UTC)"
	if dt.Day.IsZero() && s.TradesErr == "" { // a screen with no cockpit trail (attached to Vibe-Trading)
		lines := []string{"This screen reads no trades: fills come from cockpit's audit trail, which it does not have.", "", "esc close"}
		return frame(tm.c, "Trades — "+termsafe.Text(s.Broker), lines, 84, w, h)
	}
	var lines []string
	if s.TradesErr != "" {
		lines = append(lines, tm.c.Styles.Critical.Render(untrusted(s.TradesErr, 0)))
	}
	if len(dt.Trades) == 0 && s.TradesErr == "" {
		lines = append(lines, "No fills today.")
	}
	// The fills take what the frame leaves after the round trips and the totals.
	trips := tm.tripLines(dt)
	room := max(3, h-10-len(trips))
	if len(dt.Trades) > 0 {
		lines = append(lines, tradesHead)
		tm.pos = min(tm.pos, max(0, len(dt.Trades)-1))
		for i := tm.pos; i < len(dt.Trades) && i < tm.pos+room; i++ {
			lines = append(lines, tm.tradeRow(dt, dt.Trades[i]))
		}
		if more := len(dt.Trades) - tm.pos - room; more > 0 {
			lines = append(lines, fmt.Sprintf("… %d more (j/k)", more))
		}
	}
	lines = append(lines, trips...)
	if len(dt.Trades) > 0 {
		lines = append(lines, "", fmt.Sprintf("%s, %s: realised %s (fees %s)", count(len(dt.Trades), "fill"),
			count(len(dt.Trips), "round trip"), tm.money(dt.Realized, true), tm.money(dt.Fees, false)))
		if dt.NotApplied > 0 {
			lines = append(lines, fmt.Sprintf("%d fills left out of the lots (a repeat, no price, or unreadable)", dt.NotApplied))
		}
	}
	lines = append(lines, "", "FIFO lots · the numbers of `cockpit trades` · j/k scroll · esc close")
	return frame(tm.c, title, lines, 84, w, h)
}

// tradeRow is one fill: its time, side, symbol, quantity, price and fee, the realised P&L of
// the round trips it closed (net of fees) and the symbol's position after it.
func (tm *tradesModal) tradeRow(dt readmodel.DayTrades, t readmodel.Trade) string {
	px, closed, realised, pos := dt.Cells(t)
	if closed {
		realised = tm.money(t.Realized, true)
	}
	return fmt.Sprintf("%-8s %-4s %-8s %-9s %-10s %-7s %-11s %s", t.Time.Format("15:04:05"), termsafe.Text(t.Side),
		fitText(termsafe.Text(t.Symbol), 8), t.Qty, px, t.Fee, realised, pos)
}

// tripLines lists the round trips the day's fills closed (newest last), at most five.
func (tm *tradesModal) tripLines(dt readmodel.DayTrades) []string {
	if len(dt.Trips) == 0 {
		return nil
	}
	out := []string{"", "Round trips"}
	from := max(0, len(dt.Trips)-5)
	if from > 0 {
		out = append(out, fmt.Sprintf("… %d earlier", from))
	}
	for _, rt := range dt.Trips[from:] {
		side := "long"
		if !rt.Long {
			side = "short"
		}
		out = append(out, fmt.Sprintf("%-8s  %-5s %s @ %s → %s at %s  net %s", fitText(termsafe.Text(rt.Symbol), 8), side, rt.Qty,
			rt.OpenPrice, rt.ClosePrice, rt.CloseTime.Format("15:04:05"), tm.money(rt.Net, true)))
	}
	return out
}

// money is an exact amount (as `cockpit trades` prints it), signed when asked, hidden in
// privacy mode.
func (tm *tradesModal) money(a money.Amount, sign bool) string {
	if tm.c.Privacy {
		return "•••"
	}
	if sign && a.Sign() > 0 {
		return "+" + a.String()
	}
	return a.String()
}

// fitText cuts s to n cells with an ellipsis.
func fitText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func (tm *tradesModal) Update(msg tea.Msg) (tea.Msg, tea.Cmd) {
	keys, n := tm.c.Keys, len(tm.c.Data.Snap.Trades.Trades)
	switch {
	case isNo(tm.c, msg) || keyIs(msg, keys.Trades):
		return closeMsg{}, nil
	case keyIs(msg, keys.Down):
		tm.pos = min(tm.pos+1, max(0, n-1))
	case keyIs(msg, keys.Up):
		tm.pos = max(0, tm.pos-1)
	case keyIs(msg, keys.Top):
		tm.pos = 0
	case keyIs(msg, keys.Bottom):
		tm.pos = max(0, n-1)
	}
	return nil, nil
}

// count is "1 fill", "3 fills".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
