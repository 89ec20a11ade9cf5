package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Layouts by terminal size (field-anchors D3).
const (
	layoutTooSmall = iota
	layoutNarrow
	layoutMedium
	layoutWide
)

func layoutFor(w, h int) int {
	switch {
	case w < 80 || h < 24:
		return layoutTooSmall
	case w >= 120 && h >= 32:
		return layoutWide
	case w >= 100 && h >= 28:
		return layoutMedium
	}
	return layoutNarrow
}

// render draws the whole screen: status bar, banner, panes, footer, and the open modal.
func (m *Model) render() string {
	w, h := m.c.Width, m.c.Height
	layout := layoutFor(w, h)
	var screen string
	for _, p := range m.panes.all() {
		p.base().shown = false
	}
	m.tabs = m.tabs[:0]
	if layout == layoutTooSmall {
		screen = m.tooSmall(w, h)
	} else {
		head := []string{m.status.View(w)}
		if b := m.status.Banner(w); b != "" {
			head = append(head, b)
		}
		if r := m.status.Remote(w); r != "" {
			head = append(head, r)
		}
		bodyH := h - len(head) - 1
		var body string
		switch layout {
		case layoutWide, layoutMedium:
			body = m.twoColumns(len(head), w, bodyH, layout)
		default:
			body = m.narrow(len(head), w, bodyH)
		}
		screen = strings.Join(head, "\n") + "\n" + body + "\n" + m.footer.View(w, m.panes.all()[m.focus])
	}
	if m.modal != nil {
		screen = overlay(screen, m.modal.View(w, h), w, h)
	}
	return screen
}

// tooSmall keeps the status line, the worst headroom and the halt keys usable.
func (m *Model) tooSmall(w, h int) string {
	st := m.c.Styles
	name, worst := m.panes.headroom.worstHeadroom()
	lines := []string{
		m.status.View(w),
		fit(fmt.Sprintf(" %s · worst headroom %s %.0f%% · approvals waiting %d", strings.TrimSpace(ansi.Strip(m.status.stateBadge(true))), name, max(worst, 0), len(m.data.Snap.Reviews)), w),
		"",
		fit(st.Warn.Render(fmt.Sprintf(" Terminal too small: %d×%d, need ≥80×24", w, h)), w),
		fit(" "+st.Key.Render("H")+" HALT  "+st.Key.Render("X")+" flatten  "+st.Key.Render("U")+" resume  "+st.Key.Render("q")+" quit", w),
	}
	if b := m.status.Banner(w); b != "" {
		lines = append(lines[:1], append([]string{b}, lines[1:]...)...)
	}
	if r := m.status.Remote(w); r != "" {
		lines = append(lines, r)
	}
	if len(lines) > h {
		lines = lines[:max(h, 1)]
	}
	return strings.Join(lines, "\n")
}

// draw sizes a pane, notes where it goes (x, y: its top-left cell on screen, what the
// mouse hit-tests against) and draws it.
func draw(p pane, x, y, w, h int) string {
	b := p.base()
	b.SetSize(w, h)
	b.x, b.y, b.shown = x, y, true
	return p.View()
}

// twoColumns is the wide and medium layout: headroom, orders and positions on the left;
// approvals, alerts and (when shown: wide by default, medium not, @ flips it) the audit
// tail on the right.
func (m *Model) twoColumns(top, w, h, layout int) string {
	p := &m.panes
	lw := w / 2
	rw := w - lw
	headH := 8
	if layout == layoutWide {
		headH = 13
	}
	rest := h - headH
	ordersH := rest * 3 / 5
	posH := rest - ordersH
	left := column(draw(p.headroom, 0, top, lw, headH), draw(p.orders, 0, top+headH, lw, ordersH),
		draw(p.positions, 0, top+headH+ordersH, lw, posH))
	apprH := h * 2 / 5
	alertH := h - apprH
	var right string
	if tail := (layout == layoutWide) != m.tailFlipped; tail {
		alertH = (h - apprH) / 2
		right = column(draw(p.approvals, lw, top, rw, apprH), draw(p.alerts, lw, top+apprH, rw, alertH),
			draw(p.audit, lw, top+apprH+alertH, rw, h-apprH-alertH))
	} else {
		right = column(draw(p.approvals, lw, top, rw, apprH), draw(p.alerts, lw, top+apprH, rw, alertH))
	}
	return sideBySide(left, right)
}

// narrow is one pane at a time under a tab bar.
func (m *Model) narrow(top, w, h int) string {
	st := m.c.Styles
	var tabs []string
	x := 0
	for i, p := range m.panes.all() {
		label := " " + fmt.Sprintf("%d %s%s", i+1, paneNames[i], p.Count()) + " "
		if i == m.focus {
			tabs = append(tabs, st.Selected.Render(label))
		} else {
			tabs = append(tabs, label)
		}
		lw := ansi.StringWidth(label)
		m.tabs = append(m.tabs, tab{pane: i, y: top, x0: x, x1: min(x+lw, w)})
		x += lw
	}
	head := fit(strings.Join(tabs, ""), w)
	focused := m.panes.all()[m.focus]
	if m.focus == paneHeadroom {
		return head + "\n" + draw(focused, 0, top+1, w, h-1)
	}
	return head + "\n" + fit(" "+m.panes.headroom.headroomStrip(), w) + "\n" + draw(focused, 0, top+2, w, h-2)
}

// overlay draws a modal centred over the screen.
func overlay(screen, modal string, w, h int) string {
	mw, mh := lipgloss.Width(modal), lipgloss.Height(modal)
	x, y := max(0, (w-mw)/2), max(0, (h-mh)/2)
	c := lipgloss.NewCanvas(w, h)
	c.Compose(lipgloss.NewCompositor(lipgloss.NewLayer(screen), lipgloss.NewLayer(modal).X(x).Y(y).Z(1)))
	return c.Render()
}
