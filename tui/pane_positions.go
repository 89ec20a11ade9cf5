package tui

import (
	"context"
	"fmt"
	"sort"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"cockpit/live"
	"cockpit/live/money"
	"cockpit/live/termsafe"
)

// Table headers: the full form needs 66 cells.
const (
	positionHeader  = "  SYM          QTY       AVG      LAST        VALUE        uPnL"
	positionCompact = "  SYM        QTY      AVG     LAST      VALUE      uPnL"
	positionWide    = "  SYM          QTY       AVG      LAST        VALUE        uPnL        rPnL     tot P&L"
	positionWideW   = 91 // the inner width the wide form (realised and total P&L too) needs
)

// positionsPane lists the positions; x closes the selected one (reduce-only, y/N).
type positionsPane struct{ list }

func newPositionsPane(c *Common) *positionsPane {
	p := &positionsPane{list{paneBase: paneBase{c: c, index: panePositions}}}
	p.all = p.positionRows
	return p
}

func (p *positionsPane) Count() string { return fmt.Sprintf(" (%d)", len(p.c.Data.View().Positions)) }

func (p *positionsPane) View() string {
	if p.h < 3 {
		return ""
	}
	iw, ih := p.w-2, p.h-2
	compact := iw < 66
	header := positionHeader
	switch {
	case compact:
		header = positionCompact
	case iw >= positionWideW:
		header = positionWide
	}
	return p.box(p.Count(), p.c.Data.Frozen != nil, p.lines(header, p.filtered(), iw, ih, compact))
}

func (p *positionsPane) Update(msg tea.Msg) (tea.Msg, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && !p.moveKey(msg) && key.Matches(k, p.c.Keys.Close) {
		return p.confirmClose(p.SelectedID()), nil
	}
	return nil, nil
}

func (p *positionsPane) ShortHelp() []key.Binding { return []key.Binding{hint("x", "close")} }

func (p *positionsPane) positionRows() []row {
	v := p.c.Data.View()
	ps := append([]live.Position(nil), v.Positions...)
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Symbol < ps[j].Symbol })
	out := make([]row, 0, len(ps))
	for _, pos := range ps {
		out = append(out, row{id: pos.Symbol, n: 1, draw: func(compact bool) []string { return []string{p.positionLine(pos, v, compact)} }})
	}
	return out
}

func (p *positionsPane) positionLine(pos live.Position, v *Snapshot, compact bool) string {
	c := p.c
	last := "—"
	if q, ok := v.Quotes[pos.Symbol]; ok && q.Last.Sign() > 0 {
		last = c.amt(q.Last, false)
	}
	pnlW := 11
	if compact {
		pnlW = 9
	}
	pnl := c.signedCell(pos.UnrealizedPnL, pnlW)
	sym := termsafe.Text(pos.Symbol)
	line := fmt.Sprintf("%-8s %11s %9s %9s %12s %s", clip(sym, 8), qty(pos.Qty), c.amt(pos.AvgPrice, false), last,
		c.amt(pos.MarketValue, false), pnl)
	if !compact && p.w-2 >= positionWideW {
		line += " " + c.signedCell(pos.RealizedPnL, 11) + " " + c.signedCell(pos.RealizedPnL.Add(pos.UnrealizedPnL), 11)
	}
	if compact {
		line = fmt.Sprintf("%-5s %8s %8s %8s %10s %s", clip(sym, 5), clip(qty(pos.Qty), 8), clip(c.amt(pos.AvgPrice, false), 8),
			clip(last, 8), clip(c.amt(pos.MarketValue, false), 10), pnl)
	}
	return line
}

func (p *positionsPane) Details() tea.Msg {
	id := p.SelectedID()
	if id == "" {
		return nil
	}
	c := p.c
	var lines []string
	for _, pos := range c.Data.View().Positions {
		if pos.Symbol == id {
			lines = []string{"Symbol:     " + termsafe.Text(pos.Symbol), "Quantity:   " + qty(pos.Qty), "Avg price:  " + c.amt(pos.AvgPrice, false),
				"Value:      " + c.amt(pos.MarketValue, false), "Unrealized: " + c.amt(pos.UnrealizedPnL, false),
				"Realized:   " + c.amt(pos.RealizedPnL, false), "", "x closes it (reduce-only, through the gate, y/N)"}
		}
	}
	return p.detailsOf(id, lines)
}

func (p *positionsPane) confirmClose(sym string) tea.Msg {
	snap := &p.c.Data.Snap
	var pos *live.Position
	for i := range snap.Positions {
		if snap.Positions[i].Symbol == sym {
			pos = &snap.Positions[i]
		}
	}
	if pos == nil {
		return nil
	}
	side := "SELL"
	if pos.Qty.Sign() < 0 {
		side = "BUY"
	}
	return openModalMsg{&closeModal{sym: sym, confirmModal: confirmModal{c: p.c, title: "Close position " + termsafe.Text(sym),
		body: []string{fmt.Sprintf("%s %s %s at market, reduce-only, through the gate", side, qty(pos.Qty.Abs()), termsafe.Text(sym)),
			fmt.Sprintf("value now %s", p.c.amt(pos.MarketValue, false))},
		yes: actionMsg{what: ActClose, id: sym, run: func(ctx context.Context, be Backend) (string, error) { return "", be.ClosePosition(ctx, sym) }}}}}
}

// signedCell is a P&L amount right-aligned in w cells, signed and coloured (green gain, red loss).
func (c *Common) signedCell(a money.Amount, w int) string {
	s := c.amt(a, false)
	if a.Sign() > 0 && !c.Privacy {
		s = "+" + s
	}
	s = fmt.Sprintf("%*s", w, s) // pad before colouring: escape codes have no width
	switch a.Sign() {
	case 1:
		return c.Styles.Profit.Render(s)
	case -1:
		return c.Styles.Loss.Render(s)
	}
	return s
}
