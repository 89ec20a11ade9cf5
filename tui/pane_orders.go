package tui

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"cockpit/live"
	"cockpit/live/termsafe"
)

// Table headers: the full form needs 80 cells, the compact one 58.
const (
	orderHeader        = "  ID        SYM    SIDE       QTY        PX    NOTIONAL  AGE  ST    R ORIGIN"
	orderHeaderCompact = "  ID      SYM   SIDE     QTY        PX  NOTIONAL AGE ST"
)

// ordersPane lists the resting orders; c cancels the selected one, C all of them (y/N).
type ordersPane struct{ list }

func newOrdersPane(c *Common) *ordersPane {
	p := &ordersPane{list{paneBase: paneBase{c: c, index: paneOrders}}}
	p.all = p.orderRows
	return p
}

func (p *ordersPane) Count() string { return fmt.Sprintf(" (%d)", len(p.c.Data.View().Orders)) }

func (p *ordersPane) View() string {
	if p.h < 3 {
		return ""
	}
	iw, ih := p.w-2, p.h-2
	compact := iw < 80
	header := orderHeader
	if compact {
		header = orderHeaderCompact
	}
	return p.box(p.Count(), p.c.Data.Frozen != nil, p.lines(header, p.filtered(), iw, ih, compact))
}

func (p *ordersPane) Update(msg tea.Msg) (tea.Msg, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	switch {
	case !ok || p.moveKey(msg):
	case key.Matches(k, p.c.Keys.Cancel):
		return p.confirmCancel(p.SelectedID()), nil
	case key.Matches(k, p.c.Keys.CancelAll):
		return p.confirmCancelAll(), nil
	}
	return nil, nil
}

func (p *ordersPane) ShortHelp() []key.Binding { return []key.Binding{hint("c/C", "cancel/all")} }

func (p *ordersPane) orderRows() []row {
	v := p.c.Data.View()
	orders := append([]live.Order(nil), v.Orders...)
	sort.SliceStable(orders, func(i, j int) bool { return orders[i].ID < orders[j].ID })
	out := make([]row, 0, len(orders))
	for _, o := range orders {
		out = append(out, row{id: o.ID, n: 1, draw: func(compact bool) []string { return []string{p.orderLine(o, v, compact)} }})
	}
	return out
}

func (p *ordersPane) orderLine(o live.Order, v *Snapshot, compact bool) string {
	c := p.c
	px, notional := "mkt", "—"
	if o.LimitPrice != nil {
		px = c.amt(*o.LimitPrice, false)
	}
	switch {
	case o.Quantity != nil && o.LimitPrice != nil:
		notional = c.amt(o.Quantity.Mul(*o.LimitPrice), false)
	case o.Notional != nil:
		notional = c.amt(*o.Notional, false)
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
	id, sym, side := termsafe.Text(o.ID), termsafe.Text(o.Symbol), termsafe.Text(strings.ToUpper(o.Side))
	line := fmt.Sprintf("%-9s %-6s %-4s %9s %9s %11s %4s  %-5s %s %s", clip(id, 9), clip(sym, 6), side,
		q, px, notional, age(c.Now().Sub(o.CreatedAt)), st, r, termsafe.Text(v.Origins[o.ClientOrderID]))
	if compact {
		line = fmt.Sprintf("%-7s %-5s %-4s %7s %9s %9s %3s %s%s", clip(id, 7), clip(sym, 5), side,
			clip(q, 7), clip(px, 9), clip(notional, 9), age(c.Now().Sub(o.CreatedAt)), st, strings.TrimSpace(r))
	}
	return line
}

func (p *ordersPane) Details() tea.Msg {
	id := p.SelectedID()
	if id == "" {
		return nil
	}
	var lines []string
	for _, o := range p.c.Data.View().Orders {
		if o.ID == id {
			lines = p.orderDetails(o)
		}
	}
	d, _ := p.detailsOf(id, lines).(openModalMsg)
	dm := d.modal.(*detailsModal)
	dm.keys = "c cancel · "
	return openModalMsg{&keyedDetails{detailsModal: dm, act: func(msg tea.Msg) tea.Msg {
		if keyIs(msg, p.c.Keys.Cancel) {
			return p.confirmCancel(id)
		}
		return nil
	}}}
}

func (p *ordersPane) orderDetails(o live.Order) []string {
	c := p.c
	lines := []string{"Order:      " + termsafe.Text(o.ID), "Client id:  " + termsafe.Text(o.ClientOrderID), "Symbol:     " + termsafe.Text(o.Symbol),
		"Side:       " + termsafe.Text(o.Side), "Type:       " + termsafe.Text(string(o.Type)), "Quantity:   " + qtyOf(&o)}
	if o.LimitPrice != nil {
		lines = append(lines, "Limit:      "+c.amt(*o.LimitPrice, false))
	}
	lines = append(lines, "Filled:     "+qty(o.FilledQty)+" @ "+c.amt(o.AvgFillPrice, false), "Status:     "+termsafe.Text(string(o.Status)),
		"Created:    "+o.CreatedAt.UTC().Format("15:04:05"), "Origin:     "+termsafe.Text(c.Data.View().Origins[o.ClientOrderID]))
	if t, ok := c.Data.View().Trails[o.ClientOrderID]; ok {
		lines = append(lines, c.trailLines(t, min(96, c.Width-2)-4)...)
	}
	return lines
}

// confirmCancel asks y/N before cancelling one resting order (the key c, the command :cancel ID).
func (p *ordersPane) confirmCancel(id string) tea.Msg {
	if id == "" {
		return nil
	}
	snap := &p.c.Data.Snap
	var o *live.Order
	for i := range snap.Orders {
		if snap.Orders[i].ID == id {
			o = &snap.Orders[i]
		}
	}
	if o == nil {
		return flashMsg("order " + termsafe.Text(id) + " is no longer resting")
	}
	return openModalMsg{&confirmModal{c: p.c, title: "Cancel order " + termsafe.Text(id),
		body: []string{termsafe.Text(fmt.Sprintf("%s %s %s (%s)", strings.ToUpper(o.Side), qtyOf(o), o.Symbol, o.Status)), "", "The cancel goes to the broker at once and is audited."},
		yes:  actionMsg{what: ActCancel, id: id, run: func(ctx context.Context, be Backend) (string, error) { return "", be.Cancel(ctx, id) }}}}
}

func (p *ordersPane) confirmCancelAll() tea.Msg {
	snap := &p.c.Data.Snap
	n := len(snap.Orders)
	if n == 0 {
		return flashMsg("no resting orders")
	}
	ids := make([]string, n)
	for i, o := range snap.Orders {
		ids[i] = o.ID
	}
	return openModalMsg{&confirmModal{c: p.c, title: fmt.Sprintf("Cancel all %d resting orders", n),
		body: []string{"Every resting order is cancelled. Trading is not halted:", "the agent may place new orders."},
		yes: actionMsg{what: ActCancel, id: "all", run: func(ctx context.Context, be Backend) (string, error) {
			var failed []string
			for _, id := range ids {
				if err := be.Cancel(ctx, id); err != nil {
					failed = append(failed, termsafe.Text(id+": "+err.Error()))
				}
			}
			if len(failed) > 0 {
				return "", fmt.Errorf("%d of %d cancels failed: %s", len(failed), len(ids), strings.Join(failed, "; "))
			}
			return fmt.Sprintf("%d orders cancelled", len(ids)), nil
		}}}}
}

func qtyOf(o *live.Order) string {
	if o.Quantity != nil {
		return qty(*o.Quantity)
	}
	if o.Notional != nil {
		return "$" + fmtMoney(*o.Notional, 2)
	}
	return "?"
}
