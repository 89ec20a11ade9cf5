package tui

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
)

// footer is the bottom line: the short help of the focused pane (bubbles/help), or a flash
// message, or the frozen marker.
type footer struct {
	c    *Common
	help help.Model
}

func newFooter(c *Common) footer {
	h := help.New()
	h.ShortSeparator = "  "
	return footer{c: c, help: h}
}

// View draws the footer w cells wide for the focused pane.
func (f footer) View(w int, focused pane) string {
	st, d := f.c.Styles, f.c.Data
	if msg := d.flash(); msg != "" {
		return fit(" "+st.Warn.Render(msg), w)
	}
	bindings := []key.Binding{hint("?", "help"), hint("/", "filter"), hint("tab", "pane")}
	bindings = append(bindings, focused.ShortHelp()...)
	bindings = append(bindings, hint("f", "freeze"), hint(f.c.Keys.Halt.Help().Key, "HALT"))
	if f.c.may("flatten") {
		bindings = append(bindings, hint("X", "flatten"))
	}
	if f.c.may("resume") {
		bindings = append(bindings, hint("U", "resume"))
	}
	bindings = append(bindings, hint("q", "quit"))
	h := f.help
	h.Styles.ShortKey, h.Styles.ShortDesc, h.Styles.ShortSeparator = st.Key, st.Muted, lipgloss.NewStyle()
	line := " " + h.ShortHelpView(bindings)
	if d.Frozen != nil {
		line = st.Warn.Render(" FROZEN ") + line
	}
	return fit(line, w)
}
