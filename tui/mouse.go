package tui

import tea "charm.land/bubbletea/v2"

// tab is where the narrow layout drew a pane's tab: cells x0 ≤ x < x1 of line y.
type tab struct{ pane, y, x0, x1 int }

// wheelRows is how many rows one wheel notch moves the selection.
const wheelRows = 3

// onMouse handles a click or a wheel notch. Hit-testing reads where the last frame drew each
// pane, tab and row (layout.go records it as it draws), so it never disagrees with the screen.
// A click focuses a pane and selects a row, nothing more: no click acts on an order, a review
// or the halt (those keep their keys and y/N). Over an open modal the mouse does nothing.
func (m *Model) onMouse(msg tea.MouseMsg) {
	if m.opts.NoMouse || m.modal != nil {
		return
	}
	ms := msg.Mouse()
	switch msg.(type) {
	case tea.MouseClickMsg:
		if ms.Button != tea.MouseLeft {
			return
		}
		for _, t := range m.tabs {
			if ms.Y == t.y && ms.X >= t.x0 && ms.X < t.x1 {
				m.setFocus(t.pane)
				return
			}
		}
		if i, ok := m.paneAt(ms.X, ms.Y); ok {
			m.setFocus(i)
			m.selectAt(i, ms.Y)
		}
	case tea.MouseWheelMsg:
		delta := 0
		switch ms.Button {
		case tea.MouseWheelUp:
			delta = -wheelRows
		case tea.MouseWheelDown:
			delta = wheelRows
		default:
			return
		}
		i, ok := m.paneAt(ms.X, ms.Y)
		if !ok {
			i = m.focus
		}
		m.setFocus(i) // an unfocused log shows its newest lines: scroll what will show
		if l, ok := m.panes.all()[i].(interface{ rows() *list }); ok {
			l.rows().move(delta)
		}
	}
}

// paneAt is the pane the last frame drew at cell (x, y).
func (m *Model) paneAt(x, y int) (int, bool) {
	for i, p := range m.panes.all() {
		b := p.base()
		if b.shown && x >= b.x && x < b.x+b.w && y >= b.y && y < b.y+b.h {
			return i, true
		}
	}
	return 0, false
}

// selectAt selects the row of pane i drawn on screen line y, if any.
func (m *Model) selectAt(i, y int) {
	l, ok := m.panes.all()[i].(interface{ rows() *list })
	if !ok {
		return
	}
	lst := l.rows()
	if line := y - lst.y - 1; line >= 0 && line < len(lst.drawn) && lst.drawn[line] != "" { // -1: the box's top border
		lst.sel = lst.drawn[line]
	}
}
