package tui

import (
	"cockpit/readmodel"

	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// onKey handles a key press: halt first (always), then the open modal, then global and
// pane keys. esc never quits and enter never confirms a risky action.
func (m *Model) onKey(k tea.KeyPressMsg) tea.Cmd {
	typing := m.modal != nil && m.modal.Typing()
	if k.String() == "ctrl+k" || (!typing && key.Matches(k, m.c.Keys.Halt)) {
		return m.halt("key "+k.String(), false)
	}
	if k.String() == "ctrl+c" {
		return m.onCtrlC()
	}
	if m.modal != nil {
		return m.toModal(k)
	}
	if cmd, ok := m.globalKey(k); ok {
		return cmd
	}
	a, cmd := m.panes.all()[m.focus].Update(k)
	return tea.Batch(cmd, m.answer(a))
}

// toModal hands a message to the open modal and acts on its answer. A paste goes only to
// a text field; with none it does nothing (it is never read as keys).
func (m *Model) toModal(msg tea.Msg) tea.Cmd {
	if _, paste := msg.(tea.PasteMsg); m.modal == nil || (paste && !m.modal.Typing()) {
		return nil
	}
	a, cmd := m.modal.Update(msg)
	return tea.Batch(cmd, m.answer(a))
}

// onCtrlC opens the quit question; a second ctrl+c within two seconds while it is open takes
// the safe choice (halt and cancel, then quit).
func (m *Model) onCtrlC() tea.Cmd {
	if _, open := m.modal.(*quitModal); open && m.now().Sub(m.lastCtrlC) < 2*time.Second {
		return m.answer(quitMsg{readmodel.QuitHalt})
	}
	m.lastCtrlC = m.now()
	m.modal = &quitModal{m.c}
	return nil
}

func (m *Model) globalKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	keys, c := m.c.Keys, m.c
	focused := m.panes.all()[m.focus]
	var a tea.Msg
	switch {
	case key.Matches(k, keys.Flatten) && !c.may("flatten"):
		a = notAllowed("flatten")
	case key.Matches(k, keys.Flatten):
		a = openFlattenMsg{}
	case key.Matches(k, keys.Resume) && !c.may("resume"):
		a = notAllowed("resume")
	case key.Matches(k, keys.Resume):
		a = openModalMsg{newResumeModal(c)}
	case key.Matches(k, keys.Help):
		a = openModalMsg{&helpModal{c: c}}
	case key.Matches(k, keys.Quit):
		a = openModalMsg{&quitModal{c}}
	case key.Matches(k, keys.Back):
		focused.base().filter = ""
	case key.Matches(k, keys.NextPane):
		m.setFocus((m.focus + 1) % len(paneNames))
	case key.Matches(k, keys.PrevPane):
		m.setFocus((m.focus + len(paneNames) - 1) % len(paneNames))
	case key.Matches(k, keys.Freeze):
		m.data.toggleFreeze()
	case key.Matches(k, keys.Privacy):
		c.Privacy = !c.Privacy
	case key.Matches(k, keys.AuditTail):
		m.tailFlipped = !m.tailFlipped
	case key.Matches(k, keys.Mandate):
		a = openModalMsg{mandateModal{c}}
	case key.Matches(k, keys.Trades):
		a = openModalMsg{&tradesModal{c: c}}
	case key.Matches(k, keys.Audit):
		a = answers{openModalMsg{&auditModal{c: c}}, auditQueryMsg{readmodel.AuditFilter{Limit: 500}}}
	case key.Matches(k, keys.Filter):
		pane := m.focus
		a = openModalMsg{newInput(c, "filter "+paneNames[pane], focused.base().filter, func(v string) tea.Msg { return filterMsg{pane, v} })}
	case key.Matches(k, keys.Command):
		a = openModalMsg{newCommandModal(c)}
	case key.Matches(k, keys.Details):
		a = focused.Details()
	default:
		for i, b := range keys.Pane {
			if key.Matches(k, b) {
				m.setFocus(i)
				return nil, true
			}
		}
		return nil, false
	}
	return m.answer(a), true
}
