package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"cockpit/live/termsafe"
)

// pane is one box of the main screen. It owns its selection, filter and size, draws itself
// and answers the keys it gets while focused with a message for the root (answers.go).
type pane interface {
	base() *paneBase
	// Count is " (n)" after the name, "" for panes without a count.
	Count() string
	// View draws the pane as a box of exactly the size set.
	View() string
	// Update handles a key while the pane has the focus.
	Update(msg tea.Msg) (answer tea.Msg, cmd tea.Cmd)
	// Details answers enter: the drawer (or card) for the selected row, nil for none.
	Details() tea.Msg
	// ShortHelp is the pane's part of the footer.
	ShortHelp() []key.Binding
}

var paneNames = [6]string{"Headroom", "Orders", "Positions", "Approvals", "Alerts", "Audit"}

// Pane positions: the tab order and the digit keys.
const (
	paneHeadroom = iota
	paneOrders
	panePositions
	paneApprovals
	paneAlerts
	paneAudit
)

// paneBase is what every pane has: its place, name, filter, focus and size, and where the
// last frame drew it (for the mouse: hit-testing reads what the layout drew, see mouse.go).
type paneBase struct {
	c       *Common
	index   int
	filter  string
	focused bool
	w, h    int
	x, y    int  // the top-left cell of the box in the last frame
	shown   bool // the last frame drew the pane
}

func (p *paneBase) base() *paneBase { return p }

// Name is the pane's name ("Orders").
func (p *paneBase) Name() string { return paneNames[p.index] }

// SetSize sets the box the pane draws in.
func (p *paneBase) SetSize(w, h int) { p.w, p.h = w, h }

func (p *paneBase) Count() string { return "" }

func (p *paneBase) Update(tea.Msg) (tea.Msg, tea.Cmd) { return nil, nil }

func (p *paneBase) Details() tea.Msg { return nil }

func (p *paneBase) ShortHelp() []key.Binding { return nil }

// box draws the pane's lines in its box, titled with its number, name, count and filter.
func (p *paneBase) box(count string, frozen bool, lines []string) string {
	title := fmt.Sprintf("%d %s%s", p.index+1, p.Name(), count)
	if frozen {
		title += " FROZEN"
	}
	if p.filter != "" {
		title += " /" + p.filter
	}
	return box(p.c.Styles, title, lines, p.w, p.h, p.focused)
}

// hint is a footer item that only shows help (the pane's own keys are bound in KeyMap).
func hint(keys, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(keys), key.WithHelp(keys, desc))
}

// row is one selectable entry of a list pane, keyed by a stable id. Its lines are drawn only
// when it is on screen (or a filter needs its text); compact asks for the narrow form of a
// table row.
type row struct {
	id   string
	n    int // lines per row
	draw func(compact bool) []string
}

// text is the row's full form, what a filter matches whatever the pane's width.
func (r row) text() string { return strings.Join(r.draw(false), " ") }

// list is a pane of rows with a selection that follows the row's id, not its index.
type list struct {
	paneBase
	sel   string
	log   bool         // unfocused, it shows its newest lines
	all   func() []row // the pane's rows, unfiltered
	drawn []string     // the row id on each line inside the box as last drawn, "" for none
}

// rows gives the list of a list pane (the mouse selects rows by the lines it drew).
func (l *list) rows() *list { return l }

// filtered returns the pane's rows that match its filter.
func (l *list) filtered() []row {
	rs := l.all()
	f := strings.ToLower(l.filter)
	if f == "" {
		return rs
	}
	out := rs[:0:0]
	for _, r := range rs {
		if strings.Contains(strings.ToLower(ansi.Strip(r.text())), f) {
			out = append(out, r)
		}
	}
	return out
}

// selected returns the index of the selected row, fixing the selection to an existing id
// (the first row when the selected one is gone).
func (l *list) selected(rs []row) int {
	for i, r := range rs {
		if r.id == l.sel {
			return i
		}
	}
	if len(rs) == 0 {
		return -1
	}
	l.sel = rs[0].id
	return 0
}

// SelectedID is the id of the selected row among the filtered rows, "" when the filter
// leaves none: keys act only on a row that is listed.
func (l *list) SelectedID() string {
	rs := l.filtered()
	if i := l.selected(rs); i >= 0 {
		return rs[i].id
	}
	return ""
}

// move moves the selection by delta rows (clamped), following ids.
func (l *list) move(delta int) {
	rs := l.filtered()
	if len(rs) == 0 {
		return
	}
	i := l.selected(rs) + delta
	i = max(0, min(i, len(rs)-1))
	l.sel = rs[i].id
}

// moveKey handles the movement keys; it reports whether k was one.
func (l *list) moveKey(msg tea.Msg) bool {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return false
	}
	keys := l.c.Keys
	switch {
	case key.Matches(k, keys.Up):
		l.move(-1)
	case key.Matches(k, keys.Down):
		l.move(1)
	case key.Matches(k, keys.Top):
		l.move(-1 << 30)
	case key.Matches(k, keys.Bottom):
		l.move(1 << 30)
	case key.Matches(k, keys.PageUp):
		l.move(-10)
	case key.Matches(k, keys.PageDown):
		l.move(10)
	default:
		return false
	}
	return true
}

func (l *list) Update(msg tea.Msg) (tea.Msg, tea.Cmd) {
	l.moveKey(msg)
	return nil, nil
}

// lines renders rows into h lines with a header, keeping the selection visible.
func (l *list) lines(header string, rs []row, w, h int, compact bool) []string {
	st := l.c.Styles
	var out []string
	l.drawn = l.drawn[:0]
	if header != "" {
		out = append(out, st.Header.Render(fit(header, w)))
		l.drawn = append(l.drawn, "")
		h--
	}
	if len(rs) == 0 {
		return append(out, st.Muted.Render("  (none)"))
	}
	sel := l.selected(rs)
	if !l.focused && l.log {
		sel = -1 // an unfocused log shows its newest lines
	}
	per := max(rs[0].n, 1)
	visible := max(1, h/max(per, 1))
	first := 0
	if sel >= visible {
		first = sel - visible + 1
	}
	for i := first; i < len(rs) && i < first+visible; i++ {
		for j, line := range rs[i].draw(compact) {
			prefix := "  "
			if i == sel && j == 0 {
				prefix = "▶ "
			}
			text := fit(prefix+line, w)
			if i == sel && l.focused {
				text = st.Selected.Render(ansi.Strip(text))
			}
			out = append(out, text)
			l.drawn = append(l.drawn, rs[i].id)
		}
	}
	if more := len(rs) - (first + visible); more > 0 && len(out) > 0 {
		out[len(out)-1] = fit(out[len(out)-1], w-8) + st.Muted.Render(fmt.Sprintf(" +%d ↓", more))
	}
	return out
}

// detailsOf is the drawer for a row of the named pane.
func (l *list) detailsOf(id string, lines []string) tea.Msg {
	return openModalMsg{newDetails(l.c, l.Name()+" "+termsafe.Text(id), lines)}
}
