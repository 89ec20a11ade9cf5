package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"cockpit/live"
)

// selectedReview returns the selected pending review item.
func (m *Model) selectedReview() (live.ReviewItem, bool) {
	if id := m.selectedID(paneApprovals); id != "" {
		for _, it := range m.snap.Reviews {
			if it.ID == id {
				return it, true
			}
		}
	}
	return live.ReviewItem{}, false
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
			m.say("review " + it.ID + " is past its deadline: it is denied (approval_timeout)")
			return nil
		}
		m.modal = &approveModal{item: it}
	case key.Matches(k, keys.Deny):
		if it, ok := m.selectedReview(); ok {
			return m.deny(it.ID, "denied from the cockpit")
		}
	case key.Matches(k, keys.DenyAll):
		var cmds []tea.Cmd
		for _, it := range m.snap.Reviews {
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

func (m *Model) approve(it live.ReviewItem) tea.Cmd {
	if !it.Deadline.After(m.now()) {
		m.say("review " + it.ID + " passed its deadline while open: not approved")
		return nil
	}
	be := m.be
	return m.act("approve", it.ID, func(ctx context.Context) (string, error) {
		return "", be.Approve(ctx, it.ID, "approved once from the cockpit")
	})
}

// onReviewOutcome says what an approved order did: sent, or why the approval did not go
// through (then also as a critical alert, which stays on screen).
func (m *Model) onReviewOutcome(it *live.ReviewItem) {
	if m.outcomeShown == nil {
		m.outcomeShown = map[string]bool{}
	}
	m.outcomeShown[it.ID] = true
	m.say("review " + it.ID + ": " + it.Outcome)
	if !it.Went() {
		m.alert(Alert{Level: levelCrit, Kind: "REVIEW", Source: it.ID, Text: it.Outcome})
	}
}

func (m *Model) confirmCancel(id string) {
	if id == "" {
		return
	}
	var o *live.Order
	for i := range m.snap.Orders {
		if m.snap.Orders[i].ID == id {
			o = &m.snap.Orders[i]
		}
	}
	if o == nil {
		m.say("order " + id + " is no longer resting")
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
	n := len(m.snap.Orders)
	if n == 0 {
		m.say("no resting orders")
		return
	}
	ids := make([]string, n)
	for i, o := range m.snap.Orders {
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
	for i := range m.snap.Positions {
		if m.snap.Positions[i].Symbol == sym {
			p = &m.snap.Positions[i]
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
			fmt.Sprintf("value now %s", m.amt(p.MarketValue, false))},
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
			m.say(err.Error())
		}
	case "export":
		return m.act("export", "", func(ctx context.Context) (string, error) { return be.ExportAudit(ctx) })
	case "mandate":
		m.modal = &mandateModal{}
	default:
		m.say(fmt.Sprintf("unknown command %q (halt, halt broker, reduce, resume, flatten, cancel ID, theme NAME, export audit, mandate)", f[0]))
	}
	return nil
}

// onActionDone shows an action's result and re-reads the state.
func (m *Model) onActionDone(a ActionDoneMsg) tea.Cmd {
	if a.Err != nil {
		m.say(fmt.Sprintf("%s %s FAILED: %v", a.What, a.ID, a.Err))
		m.alert(Alert{Level: levelCrit, Kind: "ERROR", Source: "operator " + a.What, Text: a.Err.Error()})
		return m.refresh()
	}
	switch a.What {
	case "halt":
		m.snap.State, m.snap.Paused = live.Halted, true
		m.say("HALTED everything: live/HALT is written, resting orders are being cancelled, the agent is paused")
	case "halt broker":
		m.snap.State, m.snap.Paused = live.Halted, true
		m.say("HALTED " + m.snap.Broker + ": its HALT file is written, resting orders are being cancelled, the agent is paused")
	case "resume":
		m.snap.State = live.Active
		m.say("resumed: trading is ACTIVE")
	case "export":
		m.say("audit exported to " + a.Info)
	case "approve": // not "done": the gate runs the order again, and its outcome follows
		if !m.outcomeShown[a.ID] {
			m.say("approve " + a.ID + ": approved; the gate checks the order again before it goes")
		}
	default:
		msg := a.What + " " + a.ID + ": done"
		if a.Info != "" {
			msg = a.What + ": " + a.Info
		}
		m.say(msg)
	}
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
		m.say("mandate " + c.Result.MandateID + " committed")
	}
}
