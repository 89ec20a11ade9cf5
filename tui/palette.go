package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"cockpit/themes"
)

// paletteCommand is one command the palette offers: what to type, its argument, what it does.
type paletteCommand struct{ name, arg, what string }

// paletteCommands is every command that command() runs, in the order the palette lists them.
var paletteCommands = []paletteCommand{
	{"halt", "[reason]", "HALT every broker now"},
	{"halt broker", "[reason]", "halt this broker only"},
	{"reduce", "[reason]", "reduce-only: no new exposure"},
	{"resume", "", "remove the halt (asks y/N)"},
	{"flatten", "", "preview, then cancel and close all"},
	{"cancel", "ID", "cancel one resting order"},
	{"cancel all", "", "cancel every resting order"},
	{"theme", "NAME", "switch the colours"},
	{"export", "", "export the audit log"},
	{"mandate", "", "show the committed mandate"},
	{"unblock", "SYMBOL", "let the agent trade a blocked symbol again"},
	{"fleet", "", "list the fleet's hosts"},
	{"tools", "", "the broker's tools: which run without the gate"},
}

// paletteNames lists the commands for a message: "halt [reason], halt broker [reason], …".
func paletteNames() string {
	var names []string
	for _, c := range paletteCommands {
		names = append(names, strings.TrimSpace(c.name+" "+c.arg))
	}
	return strings.Join(names, ", ")
}

// commandModal is the `:` palette: a line with the commands that match what is typed
// listed under it; tab completes the selected one, ↑/↓ choose.
type commandModal struct {
	c   *Common
	in  textField
	sel int
}

func newCommandModal(c *Common) *commandModal {
	return &commandModal{c: c, in: newTextField("")}
}

func (p *commandModal) Typing() bool { return true }

// completion is one line the palette can complete to and what it does.
type completion struct{ text, arg, what string }

// matches lists the completions of the typed line: commands whose name starts with it (or
// that it starts with), and theme names after "theme ".
func (p *commandModal) matches() []completion {
	typed := strings.TrimLeft(strings.TrimPrefix(strings.TrimLeft(p.in.Value(), " "), ":"), " ")
	low := strings.ToLower(typed)
	if rest, ok := strings.CutPrefix(low, "theme "); ok {
		var out []completion
		for _, n := range themes.Names {
			if strings.HasPrefix(n, strings.TrimSpace(rest)) {
				out = append(out, completion{"theme " + n, "", "theme"})
			}
		}
		return out
	}
	var out, typing []completion // names that complete what is typed first, then those whose argument is being typed
	for _, c := range paletteCommands {
		switch {
		case strings.HasPrefix(c.name, low):
			out = append(out, completion{c.name, c.arg, c.what})
		case c.arg != "" && strings.HasPrefix(low, c.name+" "):
			typing = append(typing, completion{c.name, c.arg, c.what})
		}
	}
	return append(out, typing...)
}

func (p *commandModal) View(w, h int) string {
	k, st := p.c.Styles.Key.Render, p.c.Styles
	ms := p.matches()
	rows := max(1, h-8) // border 2, title and gap 2, field 1, gap and footer 2, one spare
	lines := []string{":" + p.in.View(true)}
	sel := min(p.sel, max(0, len(ms)-1))
	first := max(0, sel-rows+1)
	for i := first; i < len(ms) && i < first+rows; i++ {
		m := ms[i]
		mark := "  "
		if i == sel {
			mark = "› "
		}
		name := mark + padRight(strings.TrimSpace(m.text+" "+m.arg), 20)
		if i == sel {
			name = st.Selected.Render(name)
		}
		lines = append(lines, name+" "+st.Muted.Render(m.what))
	}
	if len(ms) == 0 {
		lines = append(lines, st.Muted.Render("  no command starts so (esc, then ? for the keys)"))
	}
	lines = append(lines, "", k("tab")+" complete · "+k("↑/↓")+" choose · "+k("enter")+" run · "+k("esc")+" cancel · ctrl+k halts")
	return frame(p.c, "command", lines, 70, w, h)
}

func padRight(s string, n int) string {
	if r := []rune(s); len(r) < n {
		return s + strings.Repeat(" ", n-len(r))
	}
	return s
}

// Update edits the line; tab completes, ↑/↓ choose, enter runs what is typed.
func (p *commandModal) Update(msg tea.Msg) (tea.Msg, tea.Cmd) {
	switch keyString(msg) {
	case "tab":
		ms := p.matches()
		if len(ms) == 0 {
			return nil, nil
		}
		m := ms[min(p.sel, len(ms)-1)]
		v := m.text
		if m.arg != "" {
			v += " "
		}
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(p.in.Value())), strings.ToLower(m.text)+" ") {
			return nil, nil // already complete: the argument is being typed
		}
		p.in = newTextField(v)
		p.in.ti.CursorEnd()
		p.sel = 0
		return nil, nil
	case "up":
		p.sel = max(0, p.sel-1)
		return nil, nil
	case "down":
		p.sel = min(max(0, len(p.matches())-1), p.sel+1)
		return nil, nil
	}
	before := p.in.Value()
	done, cancelled := fieldKey(&p.in, msg)
	switch {
	case cancelled:
		return closeMsg{}, nil
	case done:
		return closeWith(commandMsg{strings.TrimSpace(p.in.Value())}), nil
	}
	if p.in.Value() != before {
		p.sel = 0
	}
	return nil, nil
}
