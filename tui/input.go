package tui

import (
	"context"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// onKey handles a key press: halt first (always), then the open modal, then global and
// pane keys. esc never quits and enter never confirms a risky action.
func (m *Model) onKey(k tea.KeyPressMsg) tea.Cmd {
	keys := m.c.Keys
	typing := m.modal != nil && m.modal.typing()
	if k.String() == "ctrl+k" || (!typing && key.Matches(k, keys.Halt)) {
		return m.halt("key " + k.String())
	}
	if k.String() == "ctrl+c" {
		return m.onCtrlC()
	}
	if m.modal != nil {
		return m.modal.key(m, k)
	}
	if cmd, ok := m.globalKey(k); ok {
		return cmd
	}
	return m.paneKey(k)
}

// onPaste types pasted text into the open text field; with none, a paste does nothing (it
// is never read as keys).
func (m *Model) onPaste(p tea.PasteMsg) {
	if t, ok := m.modal.(interface{ paste(tea.PasteMsg) }); ok && m.modal.typing() {
		t.paste(p)
	}
}

// onCtrlC opens the quit question; a second ctrl+c within two seconds while it is open takes
// the safe choice (halt and cancel, then quit).
func (m *Model) onCtrlC() tea.Cmd {
	if _, open := m.modal.(*quitModal); open && m.now().Sub(m.lastCtrlC) < 2*time.Second {
		m.quit = QuitHalt
		return tea.Quit
	}
	m.lastCtrlC = m.now()
	m.modal = &quitModal{}
	return nil
}

func (m *Model) globalKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	keys := m.c.Keys
	switch {
	case key.Matches(k, keys.Flatten):
		return m.openFlatten(), true
	case key.Matches(k, keys.Resume):
		m.modal = newResumeModal(m)
	case key.Matches(k, keys.Help):
		m.modal = &helpModal{}
	case key.Matches(k, keys.Quit):
		m.modal = &quitModal{}
	case key.Matches(k, keys.Back):
		m.filter[m.focus] = ""
	case key.Matches(k, keys.NextPane):
		m.focus = (m.focus + 1) % len(paneNames)
	case key.Matches(k, keys.PrevPane):
		m.focus = (m.focus + len(paneNames) - 1) % len(paneNames)
	case key.Matches(k, keys.Freeze):
		m.toggleFreeze()
	case key.Matches(k, keys.Privacy):
		m.c.Privacy = !m.c.Privacy
	case key.Matches(k, keys.AuditTail):
		m.tailFlipped = !m.tailFlipped
	case key.Matches(k, keys.Mandate):
		m.modal = &mandateModal{}
	case key.Matches(k, keys.Audit):
		m.modal = &auditModal{}
		return m.loadAudit(AuditFilter{Limit: 500}), true
	case key.Matches(k, keys.Filter):
		m.modal = newInput("filter "+paneNames[m.focus], m.filter[m.focus], func(m *Model, v string) tea.Cmd {
			m.filter[m.focus] = v
			return nil
		})
	case key.Matches(k, keys.Command):
		m.modal = newInput("command", "", (*Model).command)
	case key.Matches(k, keys.Details):
		m.openDetails()
	default:
		for i, b := range keys.Pane {
			if key.Matches(k, b) {
				m.focus = i
				return nil, true
			}
		}
		return nil, false
	}
	return nil, true
}

func (m *Model) paneKey(k tea.KeyPressMsg) tea.Cmd {
	keys := m.c.Keys
	switch {
	case key.Matches(k, keys.Up):
		m.move(m.focus, -1)
	case key.Matches(k, keys.Down):
		m.move(m.focus, 1)
	case key.Matches(k, keys.Top):
		m.move(m.focus, -1<<30)
	case key.Matches(k, keys.Bottom):
		m.move(m.focus, 1<<30)
	case key.Matches(k, keys.PageUp):
		m.move(m.focus, -10)
	case key.Matches(k, keys.PageDown):
		m.move(m.focus, 10)
	case m.focus == paneApprovals:
		return m.approvalKey(k)
	case m.focus == paneOrders && key.Matches(k, keys.Cancel):
		m.confirmCancel(m.selectedID(paneOrders))
	case m.focus == paneOrders && key.Matches(k, keys.CancelAll):
		m.confirmCancelAll()
	case m.focus == panePositions && key.Matches(k, keys.Close):
		m.confirmClose(m.selectedID(panePositions))
	}
	return nil
}

func (m *Model) toggleFreeze() {
	if m.data.Frozen != nil {
		m.data.Frozen = nil
		return
	}
	s := m.data.Snap
	m.data.Frozen = &s
}

// halt writes the HALT sentinel through the backend (no confirmation: stopping is safe).
func (m *Model) halt(reason string) tea.Cmd {
	if m.be == nil {
		return nil
	}
	m.data.say("HALT requested — writing the HALT file…")
	be := m.be
	return m.act("halt", "", func(ctx context.Context) (string, error) { return "", be.Halt(ctx, reason) })
}

// haltBroker writes this broker's HALT sentinel only (the command palette's :halt broker).
func (m *Model) haltBroker(reason string) tea.Cmd {
	if m.be == nil {
		return nil
	}
	if reason == "" {
		reason = "command :halt broker"
	}
	m.data.say("HALT " + m.data.Snap.Broker + " requested — writing its HALT file…")
	be := m.be
	return m.act("halt broker", "", func(ctx context.Context) (string, error) { return "", be.HaltBroker(ctx, reason) })
}
