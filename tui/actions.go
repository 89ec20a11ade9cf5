package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"cockpit/engine"
	"cockpit/live"
)

// selectedReview returns the selected pending review item.
func (m *Model) selectedReview() (engine.ReviewItem, bool) {
	if id := m.selectedID(paneApprovals); id != "" {
		for _, it := range m.data.Snap.Reviews {
			if it.ID == id {
				return it, true
			}
		}
	}
	return engine.ReviewItem{}, false
}

// approvalKey: a approves once after a y/N card; d denies at once (denying is safe); D denies
// every waiting item. An item past its deadline cannot be approved.
func (m *Model) approvalKey(k tea.KeyPressMsg) tea.Cmd {
	keys := m.c.Keys
	switch {
	case key.Matches(k, keys.Approve):
		it, ok := m.selectedReview()
		if !ok {
			return nil
		}
		if !it.Deadline.After(m.now()) {
			m.data.say("review " + it.ID + " is past its deadline: it is denied (approval_timeout)")
			return nil
		}
		m.modal = &approveModal{item: it}
	case key.Matches(k, keys.Deny):
		if it, ok := m.selectedReview(); ok {
			return m.deny(it.ID, "denied from the cockpit")
		}
	case key.Matches(k, keys.DenyAll):
		var cmds []tea.Cmd
		for _, it := range m.data.Snap.Reviews {
			cmds = append(cmds, m.deny(it.ID, "denied from the cockpit (deny all)"))
		}
		return tea.Batch(cmds...)
	}
	return nil
}

func (m *Model) deny(id, reason string) tea.Cmd {
	be := m.be
	return m.act("deny", id, func(ctx context.Context) (string, error) { return "", be.Deny(ctx, id, reason) })
}

func (m *Model) approve(it engine.ReviewItem) tea.Cmd {
	if !it.Deadline.After(m.now()) {
		m.data.say("review " + it.ID + " passed its deadline while open: not approved")
		return nil
	}
	be := m.be
	return m.act("approve", it.ID, func(ctx context.Context) (string, error) {
		return "", be.Approve(ctx, it.ID, "approved once from the cockpit")
	})
}

func (m *Model) confirmCancel(id string) {
	if id == "" {
		return
	}
	var o *live.Order
	for i := range m.data.Snap.Orders {
		if m.data.Snap.Orders[i].ID == id {
			o = &m.data.Snap.Orders[i]
		}
	}
	if o == nil {
		m.data.say("order " + id + " is no longer resting")
		return
	}
	be := m.be
	m.modal = &confirmModal{title: "Cancel order " + id,
		body: []string{fmt.Sprintf("%s %s %s (%s)", strings.ToUpper(o.Side), qtyOf(o), o.Symbol, o.Status), "", "The cancel goes to the broker at once and is audited."},
		yes: func(m *Model) tea.Cmd {
			return m.act("cancel", id, func(ctx context.Context) (string, error) { return "", be.Cancel(ctx, id) })
		}}
}

func (m *Model) confirmCancelAll() {
	n := len(m.data.Snap.Orders)
	if n == 0 {
		m.data.say("no resting orders")
		return
	}
	ids := make([]string, n)
	for i, o := range m.data.Snap.Orders {
		ids[i] = o.ID
	}
	be := m.be
	m.modal = &confirmModal{title: fmt.Sprintf("Cancel all %d resting orders", n),
		body: []string{"Every resting order is cancelled. Trading is not halted:", "the agent may place new orders."},
		yes: func(m *Model) tea.Cmd {
			return m.act("cancel", "all", func(ctx context.Context) (string, error) {
				var failed []string
				for _, id := range ids {
					if err := be.Cancel(ctx, id); err != nil {
						failed = append(failed, id+": "+err.Error())
					}
				}
				if len(failed) > 0 {
					return "", fmt.Errorf("%d of %d cancels failed: %s", len(failed), len(ids), strings.Join(failed, "; "))
				}
				return fmt.Sprintf("%d orders cancelled", len(ids)), nil
			})
		}}
}

func (m *Model) confirmClose(sym string) {
	var p *live.Position
	for i := range m.data.Snap.Positions {
		if m.data.Snap.Positions[i].Symbol == sym {
			p = &m.data.Snap.Positions[i]
		}
	}
	if p == nil {
		return
	}
	side := "SELL"
	if p.Qty.Sign() < 0 {
		side = "BUY"
	}
	be := m.be
	m.modal = &confirmModal{title: "Close position " + sym,
		body: []string{fmt.Sprintf("%s %s %s at market, reduce-only, through the gate", side, qty(p.Qty.Abs()), sym),
			fmt.Sprintf("value now %s", m.c.amt(p.MarketValue, false))},
		yes: func(m *Model) tea.Cmd {
			return m.act("close", sym, func(ctx context.Context) (string, error) { return "", be.ClosePosition(ctx, sym) })
		}}
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

// command runs a command-palette line.
func (m *Model) command(line string) tea.Cmd {
	f := strings.Fields(line)
	if len(f) == 0 {
		return nil
	}
	arg := strings.Join(f[1:], " ")
	be := m.be
	switch strings.TrimPrefix(f[0], ":") {
	case "halt":
		if f := strings.Fields(arg); len(f) > 0 && f[0] == "broker" {
			return m.haltBroker(strings.TrimSpace(strings.TrimPrefix(arg, "broker")))
		}
		if arg == "" {
			arg = "command :halt"
		}
		return m.halt(arg)
	case "reduce":
		return m.act("reduce", "", func(ctx context.Context) (string, error) { return "", be.ReduceOnly(ctx, "command :reduce "+arg) })
	case "resume":
		m.modal = newResumeModal(m)
	case "flatten":
		return m.openFlatten()
	case "cancel":
		m.confirmCancel(arg)
	case "theme":
		if err := m.setTheme(arg); err != nil {
			m.data.say(err.Error())
		}
	case "export":
		return m.act("export", "", func(ctx context.Context) (string, error) { return be.ExportAudit(ctx) })
	case "mandate":
		m.modal = &mandateModal{}
	default:
		m.data.say(fmt.Sprintf("unknown command %q (halt, halt broker, reduce, resume, flatten, cancel ID, theme NAME, export audit, mandate)", f[0]))
	}
	return nil
}

// onActionDone shows an action's result and re-reads the state.
func (m *Model) onActionDone(a ActionDoneMsg) tea.Cmd {
	m.data.onActionDone(a)
	return m.refresh()
}

func (m *Model) loadAudit(f AuditFilter) tea.Cmd {
	if m.be == nil {
		return nil
	}
	be := m.be
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 5*1e9)
		defer cancel()
		rows, err := be.Audit(ctx, f)
		return AuditPageMsg{Rows: rows, Filter: f, Err: err}
	}
}

func (m *Model) onAuditPage(p AuditPageMsg) {
	if a, ok := m.modal.(*auditModal); ok {
		a.rows, a.err, a.filter = p.Rows, p.Err, p.Filter
		a.pos = 0
	}
}

func (m *Model) onCommitDone(c CommitDoneMsg) {
	if f, ok := m.modal.(*formModal); ok {
		f.form.done(c.Result, c.Err)
	}
	if c.Err == nil && c.Result != nil {
		m.data.say("mandate " + c.Result.MandateID + " committed")
	}
}
