package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
)

// Layouts by terminal size (field-anchors D3).
const (
	layoutTooSmall = iota
	layoutNarrow
	layoutMedium
	layoutWide
)

func (m *Model) layout() int {
	w, h := m.c.Width, m.c.Height
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

// tailShown reports whether the audit tail pane is on screen (wide shows it by default,
// medium hides it; @ flips the default).
func (m *Model) tailShown() bool {
	def := m.layout() == layoutWide
	return def != m.tailFlipped
}

// render draws the whole screen.
func (m *Model) render() string {
	w, h := m.c.Width, m.c.Height
	var screen string
	if m.layout() == layoutTooSmall {
		screen = m.tooSmall(w, h)
	} else {
		head := []string{m.statusBar(w)}
		if b := m.haltBanner(w); b != "" {
			head = append(head, b)
		}
		bodyH := h - len(head) - 1
		var body string
		switch m.layout() {
		case layoutWide, layoutMedium:
			body = m.twoColumns(w, bodyH)
		default:
			body = m.narrow(w, bodyH)
		}
		screen = strings.Join(head, "\n") + "\n" + body + "\n" + m.footer(w)
	}
	if m.modal != nil {
		screen = overlay(screen, m.modal.view(m, w, h), w, h)
	}
	return screen
}

// tooSmall keeps the status line, the worst headroom and the halt keys usable.
func (m *Model) tooSmall(w, h int) string {
	st := m.c.Styles
	name, worst := m.worstHeadroom()
	lines := []string{
		m.statusBar(w),
		fit(fmt.Sprintf(" %s · worst headroom %s %.0f%% · approvals waiting %d", m.data.State(), name, max(worst, 0), len(m.data.Snap.Reviews)), w),
		"",
		fit(st.Warn.Render(fmt.Sprintf(" Terminal too small: %d×%d, need ≥80×24", w, h)), w),
		fit(" "+st.Key.Render("H")+" HALT  "+st.Key.Render("X")+" flatten  "+st.Key.Render("U")+" resume  "+st.Key.Render("q")+" quit", w),
	}
	if b := m.haltBanner(w); b != "" {
		lines = append(lines[:1], append([]string{b}, lines[1:]...)...)
	}
	if len(lines) > h {
		lines = lines[:max(h, 1)]
	}
	return strings.Join(lines, "\n")
}

// twoColumns is the wide and medium layout: headroom, orders and positions on the left;
// approvals, alerts and (when shown) the audit tail on the right.
func (m *Model) twoColumns(w, h int) string {
	lw := w / 2
	rw := w - lw
	headH := 8
	if m.layout() == layoutWide {
		headH = 13
	}
	rest := h - headH
	ordersH := rest * 3 / 5
	posH := rest - ordersH
	left := column(
		m.pane(paneHeadroom, lw, headH),
		m.pane(paneOrders, lw, ordersH),
		m.pane(panePositions, lw, posH),
	)
	apprH := h * 2 / 5
	alertH := h - apprH
	var right string
	if m.tailShown() {
		alertH = (h - apprH) / 2
		right = column(m.pane(paneApprovals, rw, apprH), m.pane(paneAlerts, rw, alertH), m.pane(paneAudit, rw, h-apprH-alertH))
	} else {
		right = column(m.pane(paneApprovals, rw, apprH), m.pane(paneAlerts, rw, alertH))
	}
	return sideBySide(left, right)
}

// narrow is one pane at a time under a tab bar.
func (m *Model) narrow(w, h int) string {
	st := m.c.Styles
	var tabs []string
	for i, n := range paneNames {
		label := fmt.Sprintf("%d %s%s", i+1, n, m.count(i))
		if i == m.focus {
			tabs = append(tabs, st.Selected.Render(" "+label+" "))
		} else {
			tabs = append(tabs, " "+label+" ")
		}
	}
	head := fit(strings.Join(tabs, ""), w)
	if m.focus == paneHeadroom {
		return head + "\n" + m.pane(m.focus, w, h-1)
	}
	return head + "\n" + fit(" "+m.headroomStrip(), w) + "\n" + m.pane(m.focus, w, h-2)
}

// headroomStrip is every gauge on one line (narrow layouts): "order 68% · exp 9% …".
func (m *Model) headroomStrip() string {
	var parts []string
	for _, g := range m.gauges() {
		p := percent(g.used, g.limit)
		text := fmt.Sprintf("%s %.0f%%", shortLabel[g.label], p)
		if mk := marker(p); mk != "" {
			text += " " + mk
		}
		parts = append(parts, text)
	}
	if len(parts) == 0 {
		return m.c.Styles.Critical.Render("no mandate: every order is denied")
	}
	return strings.Join(parts, " · ")
}

// count is " (n)" for panes with rows.
func (m *Model) count(pane int) string {
	switch pane {
	case paneOrders:
		return fmt.Sprintf(" (%d)", len(m.data.View().Orders))
	case panePositions:
		return fmt.Sprintf(" (%d)", len(m.data.View().Positions))
	case paneApprovals:
		if n := len(m.data.Snap.Reviews); n > 0 {
			return fmt.Sprintf(" (%d!)", n)
		}
		return " (0)"
	}
	return ""
}

// pane draws one pane in a box of w×h.
func (m *Model) pane(p, w, h int) string {
	if h < 3 {
		return ""
	}
	iw, ih := w-2, h-2
	title := fmt.Sprintf("%d %s%s", p+1, paneNames[p], m.count(p))
	if m.data.Frozen != nil && (p == paneOrders || p == panePositions) {
		title += " FROZEN"
	}
	if f := m.filter[p]; f != "" {
		title += " /" + f
	}
	var lines []string
	switch p {
	case paneHeadroom:
		lines = m.headroomLines(iw, ih, iw < 58)
	case paneOrders:
		compact := iw < 80
		header := orderHeader
		if compact {
			header = orderHeaderCompact
		}
		lines = m.listLines(p, header, m.rows(p), iw, ih, compact)
	case panePositions:
		compact := iw < 66
		header := positionHeader
		if compact {
			header = positionCompact
		}
		lines = m.listLines(p, header, m.rows(p), iw, ih, compact)
	case paneApprovals:
		lines = m.listLines(p, "", m.rows(p), iw, ih-1, false)
		lines = append(padTo(lines, ih-1), m.c.Styles.Muted.Render(" a approve · d deny · D deny all · enter details"))
	case paneAlerts, paneAudit:
		lines = m.listLines(p, "", m.rows(p), iw, ih, false)
	}
	return box(m.c.Styles, title, lines, w, h, m.focus == p)
}

func padTo(lines []string, n int) []string {
	for len(lines) < n {
		lines = append(lines, "")
	}
	return lines
}

// overlay draws a modal centred over the screen.
func overlay(screen, modal string, w, h int) string {
	mw, mh := lipgloss.Width(modal), lipgloss.Height(modal)
	x, y := max(0, (w-mw)/2), max(0, (h-mh)/2)
	c := lipgloss.NewCanvas(w, h)
	c.Compose(lipgloss.NewCompositor(lipgloss.NewLayer(screen), lipgloss.NewLayer(modal).X(x).Y(y).Z(1)))
	return c.Render()
}
