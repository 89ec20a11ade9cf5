package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"cockpit/live"
	"cockpit/live/money"
)

// row is one selectable entry of a pane, keyed by a stable id. Its lines are drawn only
// when it is on screen (or a filter needs its text); compact asks for the narrow form of a
// table row.
type row struct {
	id   string
	n    int // lines per row
	draw func(compact bool) []string
}

// text is the row's full form, what a filter matches whatever the pane's width.
func (r row) text() string { return strings.Join(r.draw(false), " ") }

// rows returns a pane's rows, filtered.
func (m *Model) rows(pane int) []row {
	var rs []row
	switch pane {
	case paneOrders:
		rs = m.orderRows()
	case panePositions:
		rs = m.positionRows()
	case paneApprovals:
		rs = m.reviewRows()
	case paneAlerts:
		rs = m.alertRows()
	case paneAudit:
		rs = m.auditRows()
	}
	f := strings.ToLower(m.filter[pane])
	if f == "" {
		return rs
	}
	out := rs[:0:0]
	for _, r := range rs {
		if strings.Contains(strings.ToLower(ansi.Strip(r.text())), f) {
			out = append(out, r)
		}
	}
	return out
}

// selected returns the index of the selected row, fixing the selection to an existing id
// (the first row when the selected one is gone).
func (m *Model) selected(pane int, rs []row) int {
	for i, r := range rs {
		if r.id == m.sel[pane] {
			return i
		}
	}
	if len(rs) == 0 {
		return -1
	}
	m.sel[pane] = rs[0].id
	return 0
}

// selectedID is the id of the selected row among the pane's filtered rows, "" when the
// filter leaves none: keys act only on a row that is listed.
func (m *Model) selectedID(pane int) string {
	rs := m.rows(pane)
	if i := m.selected(pane, rs); i >= 0 {
		return rs[i].id
	}
	return ""
}

// move moves a pane's selection by delta rows (clamped), following ids.
func (m *Model) move(pane, delta int) {
	rs := m.rows(pane)
	if len(rs) == 0 {
		return
	}
	i := m.selected(pane, rs) + delta
	i = max(0, min(i, len(rs)-1))
	m.sel[pane] = rs[i].id
}

// listLines renders rows into h lines with a header, keeping the selection visible.
func (m *Model) listLines(pane int, header string, rs []row, w, h int, compact bool) []string {
	st := m.c.Styles
	var out []string
	if header != "" {
		out = append(out, st.Header.Render(fit(header, w)))
		h--
	}
	if len(rs) == 0 {
		return append(out, st.Muted.Render("  (none)"))
	}
	sel := m.selected(pane, rs)
	focused := m.focus == pane
	if !focused && (pane == paneAlerts || pane == paneAudit) {
		sel = -1 // an unfocused log shows its newest lines
	}
	per := max(rs[0].n, 1)
	visible := max(1, h/max(per, 1))
	first := 0
	if sel >= visible {
		first = sel - visible + 1
	}
	for i := first; i < len(rs) && i < first+visible; i++ {
		for j, l := range rs[i].draw(compact) {
			prefix := "  "
			if i == sel && j == 0 {
				prefix = "▶ "
			}
			text := fit(prefix+l, w)
			if i == sel && focused {
				text = st.Selected.Render(ansi.Strip(text))
			}
			out = append(out, text)
		}
	}
	if more := len(rs) - (first + visible); more > 0 && len(out) > 0 {
		out[len(out)-1] = fit(out[len(out)-1], w-8) + st.Muted.Render(fmt.Sprintf(" +%d ↓", more))
	}
	return out
}

// Table headers: the full form needs 80 cells, the compact one 58.
const (
	orderHeader        = "  ID        SYM    SIDE       QTY        PX    NOTIONAL  AGE  ST    R ORIGIN"
	orderHeaderCompact = "  ID      SYM   SIDE     QTY        PX  NOTIONAL AGE ST"
	positionHeader     = "  SYM          QTY       AVG      LAST        VALUE        uPnL"
	positionCompact    = "  SYM        QTY      AVG     LAST      VALUE      uPnL"
)

func (m *Model) orderRows() []row {
	v := m.view()
	orders := append([]live.Order(nil), v.Orders...)
	sort.SliceStable(orders, func(i, j int) bool { return orders[i].ID < orders[j].ID })
	out := make([]row, 0, len(orders))
	for _, o := range orders {
		out = append(out, row{id: o.ID, n: 1, draw: func(compact bool) []string { return []string{m.orderLine(o, v, compact)} }})
	}
	return out
}

func (m *Model) orderLine(o live.Order, v *Snapshot, compact bool) string {
	px, notional := "mkt", "—"
	if o.LimitPrice != nil {
		px = m.amt(*o.LimitPrice, false)
	}
	switch {
	case o.Quantity != nil && o.LimitPrice != nil:
		notional = m.amt(o.Quantity.Mul(*o.LimitPrice), false)
	case o.Notional != nil:
		notional = m.amt(*o.Notional, false)
	}
	q := "—"
	if o.Quantity != nil {
		q = qty(*o.Quantity)
		if o.FilledQty.Sign() > 0 {
			q = qty(o.FilledQty) + "/" + q
		}
	}
	r := " "
	if o.ReduceOnly {
		r = "R"
	}
	st := map[live.OrderStatus]string{live.StatusAccepted: "NEW", live.StatusPartial: "PART"}[o.Status]
	line := fmt.Sprintf("%-9s %-6s %-4s %9s %9s %11s %4s  %-5s %s %s", clip(o.ID, 9), clip(o.Symbol, 6), strings.ToUpper(o.Side),
		q, px, notional, age(m.now().Sub(o.CreatedAt)), st, r, v.Origins[o.ClientOrderID])
	if compact {
		line = fmt.Sprintf("%-7s %-5s %-4s %7s %9s %9s %3s %s%s", clip(o.ID, 7), clip(o.Symbol, 5), strings.ToUpper(o.Side),
			clip(q, 7), clip(px, 9), clip(notional, 9), age(m.now().Sub(o.CreatedAt)), st, strings.TrimSpace(r))
	}
	return line
}

func (m *Model) positionRows() []row {
	v := m.view()
	ps := append([]live.Position(nil), v.Positions...)
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Symbol < ps[j].Symbol })
	out := make([]row, 0, len(ps))
	for _, p := range ps {
		out = append(out, row{id: p.Symbol, n: 1, draw: func(compact bool) []string { return []string{m.positionLine(p, v, compact)} }})
	}
	return out
}

func (m *Model) positionLine(p live.Position, v *Snapshot, compact bool) string {
	last := "—"
	if q, ok := v.Quotes[p.Symbol]; ok && q.Last.Sign() > 0 {
		last = m.amt(q.Last, false)
	}
	pnl := m.amt(p.UnrealizedPnL, false)
	if p.UnrealizedPnL.Sign() > 0 && !m.c.Privacy {
		pnl = "+" + pnl
	}
	pnlW := 11
	if compact {
		pnlW = 9
	}
	pnl = fmt.Sprintf("%*s", pnlW, pnl) // pad before colouring: escape codes have no width
	switch p.UnrealizedPnL.Sign() {
	case 1:
		pnl = m.c.Styles.Profit.Render(pnl)
	case -1:
		pnl = m.c.Styles.Loss.Render(pnl)
	}
	line := fmt.Sprintf("%-8s %11s %9s %9s %12s %s", clip(p.Symbol, 8), qty(p.Qty), m.amt(p.AvgPrice, false), last,
		m.amt(p.MarketValue, false), pnl)
	if compact {
		line = fmt.Sprintf("%-5s %8s %8s %8s %10s %s", clip(p.Symbol, 5), clip(qty(p.Qty), 8), clip(m.amt(p.AvgPrice, false), 8),
			clip(last, 8), clip(m.amt(p.MarketValue, false), 10), pnl)
	}
	return line
}

func (m *Model) reviewRows() []row {
	v := &m.snap // the review queue is never frozen: its deadlines run
	items := append([]live.ReviewItem(nil), v.Reviews...)
	sort.SliceStable(items, func(i, j int) bool { return items[i].Created.Before(items[j].Created) })
	out := make([]row, 0, len(items))
	for _, it := range items {
		out = append(out, row{id: it.ID, n: 2, draw: func(bool) []string { return m.reviewLines(it) }})
	}
	return out
}

func (m *Model) reviewLines(it live.ReviewItem) []string {
	left := it.Deadline.Sub(m.now())
	clock := "⏳ " + countdown(left)
	if left <= 0 {
		clock = m.c.Styles.Critical.Render("TIMED OUT")
	} else if left < 30e9 {
		clock = m.c.Styles.Critical.Render(clock)
	}
	first := fmt.Sprintf("%-12s %s  %s", clip(it.ID, 12), reviewOrder(&it, m), clock)
	second := "    " + reviewReason(&it)
	if m.c.Privacy {
		second = maskDigits(second)
	}
	return []string{first, second}
}

// reviewOrder is "BUY $6,000 AAPL" or "SELL 10 TSLA @ 245".
func reviewOrder(it *live.ReviewItem, m *Model) string {
	if it.Order == nil {
		return "?"
	}
	mask := ""
	if m.c.Privacy {
		mask = "$•••"
	}
	return it.OrderText(true, mask)
}

func reviewReason(it *live.ReviewItem) string {
	switch {
	case it.Limit != "":
		more := ""
		if n := len(it.Breaches); n > 1 {
			more = fmt.Sprintf(" (+%d more)", n-1)
		}
		return fmt.Sprintf("breach: %s %s > %s%s", it.Limit, roundText(it.Attempted), roundText(it.LimitValue), more)
	case it.Why == "escalated":
		return "escalated: the turn read flagged outside content"
	}
	return "supervised: every order waits for a human"
}

func reviewLine(it *live.ReviewItem, m *Model) string {
	return reviewOrder(it, m) + " — " + reviewReason(it)
}

func (m *Model) alertRows() []row {
	st := m.c.Styles
	out := make([]row, 0, len(m.alerts))
	for i := len(m.alerts) - 1; i >= 0; i-- {
		a := m.alerts[i]
		out = append(out, row{id: a.ID, n: 1, draw: func(bool) []string { return []string{m.alertLine(a, st)} }})
	}
	return out
}

func (m *Model) alertLine(a Alert, st Styles) string {
	glyph, style := "·", st.Text
	switch a.Level {
	case levelWarn:
		glyph, style = "⚠", st.Warn
	case levelCrit:
		glyph, style = "✖", st.Critical
	}
	text := a.Text
	if a.Untrusted {
		text = "UNTRUSTED \"" + untrusted(text, 200) + "\""
	} else {
		text = untrusted(text, 200)
	}
	line := fmt.Sprintf("%s %s %-9s %s %s", a.Time.UTC().Format("15:04:05"), style.Render(glyph), style.Render(a.Kind),
		st.Muted.Render(untrusted(a.Source, 24)), text)
	return line
}

func (m *Model) auditRows() []row {
	out := make([]row, 0, len(m.snap.Audit))
	for _, e := range m.snap.Audit {
		out = append(out, row{id: fmt.Sprint(e.Seq), n: 1, draw: func(bool) []string { return []string{auditLine(e, m)} }})
	}
	return out
}

func auditLine(e AuditRow, m *Model) string {
	reason := ""
	if e.Reason != "" {
		reason = " " + e.Reason
	}
	summary := untrusted(e.Summary, 80)
	if m.c.Privacy {
		summary = maskDigits(summary)
	}
	return fmt.Sprintf("%s #%d %-18s %s %s%s %s", e.Time.UTC().Format("15:04:05"), e.Seq, clip(e.Actor, 18),
		e.Type, e.Outcome, reason, summary)
}

// maskDigits hides amounts in text (privacy mode).
func maskDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return '•'
		}
		return r
	}, s)
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// roundText shows a decimal with at most 2 places (limits and attempted values).
func roundText(s string) string {
	a, err := money.Parse(s)
	if err != nil {
		return s
	}
	return a.Round(2).String()
}
