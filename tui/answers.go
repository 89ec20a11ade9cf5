package tui

import (
	"cockpit/readmodel"

	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// Answers: what panes and modals ask of the root. A component never touches the root or the
// backend; it returns one of these from Update and the root acts on it at once.
type (
	// closeMsg closes the open modal.
	closeMsg struct{}
	// answers is several answers, acted on in order.
	answers []tea.Msg
	// openModalMsg opens a modal (replacing the open one).
	openModalMsg struct{ modal modal }
	// flashMsg shows a message in the footer.
	flashMsg string
	// actionMsg runs an operator action on the backend; its result comes back as ActionDoneMsg.
	actionMsg struct {
		what Action
		id   string
		run  func(ctx context.Context, be Backend) (info string, err error)
	}
	// quitMsg quits with the operator's choice for resting orders.
	quitMsg struct{ choice readmodel.QuitChoice }
	// filterMsg sets a pane's filter.
	filterMsg struct {
		pane int
		text string
	}
	// commandMsg runs a command-palette line.
	commandMsg struct{ line string }
	// haltMsg halts everything, or this broker only.
	haltMsg struct {
		reason string
		broker bool
	}
	// openFlattenMsg shows the flatten preview, or the running flatten's progress.
	openFlattenMsg struct{}
	// startFlattenMsg starts the flatten the preview showed.
	startFlattenMsg struct{}
	// openFormMsg opens the mandate form on the mandate in force.
	openFormMsg struct{}
	// auditQueryMsg reads a page of the audit trail for the audit view.
	auditQueryMsg struct{ filter readmodel.AuditFilter }
	// themeMsg switches the theme.
	themeMsg struct{ name string }
	// refreshMsg reads a snapshot now.
	refreshMsg struct{}
)

// closeWith closes the open modal, then acts on the answer.
func closeWith(msg tea.Msg) tea.Msg { return answers{closeMsg{}, msg} }

// answer acts on a component's answer.
func (m *Model) answer(msg tea.Msg) tea.Cmd {
	switch a := msg.(type) {
	case answers:
		var cmds []tea.Cmd
		for _, x := range a {
			cmds = append(cmds, m.answer(x))
		}
		return tea.Batch(cmds...)
	case closeMsg:
		m.modal = nil
	case openModalMsg:
		m.modal = a.modal
	case flashMsg:
		m.data.say(string(a))
	case actionMsg:
		be := m.be
		return m.act(a.what, a.id, func(ctx context.Context) (string, error) { return a.run(ctx, be) })
	case quitMsg:
		m.quit = a.choice
		return tea.Quit
	case filterMsg:
		m.panes.all()[a.pane].base().filter = a.text
	case commandMsg:
		return m.answer(command(a.line, &m.panes))
	case haltMsg:
		return m.halt(a.reason, a.broker)
	case openFlattenMsg:
		m.openFlatten()
	case startFlattenMsg:
		m.data.say("FLATTEN: halting, cancelling, closing…")
		var cmd tea.Cmd
		m.flat, cmd = startFlatten(m.be, m.now())
		m.modal = &flattenModal{c: m.c, run: m.flat}
		return cmd
	case openFormMsg:
		m.openForm()
	case auditQueryMsg:
		return m.loadAudit(a.filter)
	case themeMsg:
		if err := m.setTheme(a.name); err != nil {
			m.data.say(err.Error())
		}
	case refreshMsg:
		return m.refresh()
	}
	return nil
}

// command reads a command-palette line into an answer.
func command(line string, p *paneSet) tea.Msg {
	f := strings.Fields(line)
	if len(f) == 0 {
		return nil
	}
	arg := strings.Join(f[1:], " ")
	switch strings.TrimPrefix(f[0], ":") {
	case "halt":
		if f := strings.Fields(arg); len(f) > 0 && f[0] == "broker" {
			reason := strings.TrimSpace(strings.TrimPrefix(arg, "broker"))
			if reason == "" {
				reason = "command :halt broker"
			}
			return haltMsg{reason: reason, broker: true}
		}
		if arg == "" {
			arg = "command :halt"
		}
		return haltMsg{reason: arg}
	case "reduce":
		return actionMsg{what: ActReduce, run: func(ctx context.Context, be Backend) (string, error) {
			return "", be.ReduceOnly(ctx, "command :reduce "+arg)
		}}
	case "resume":
		return openModalMsg{newResumeModal(p.headroom.c)}
	case "flatten":
		return openFlattenMsg{}
	case "cancel":
		if arg == "all" {
			return p.orders.confirmCancelAll()
		}
		return p.orders.confirmCancel(arg)
	case "theme":
		return themeMsg{arg}
	case "export":
		return actionMsg{what: ActExport, run: func(ctx context.Context, be Backend) (string, error) { return be.ExportAudit(ctx) }}
	case "mandate":
		return openModalMsg{mandateModal{p.headroom.c}}
	case "unblock":
		return unblock(arg)
	case "fleet":
		return openModalMsg{&fleetModal{p.headroom.c}}
	case "tools":
		return openModalMsg{newDetails(p.headroom.c, "Broker tools", brokerToolLines(p.headroom.c))}
	}
	return flashMsg(fmt.Sprintf("unknown command %q (%s; : lists them, tab completes)", f[0], paletteNames()))
}
