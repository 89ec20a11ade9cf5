package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// helpModal lists every key in groups, side by side as wide as the screen allows (like
// k9s), and scrolls with j/k when they do not fit.
type helpModal struct {
	c      *Common
	off    int // first line shown
	maxOff int // set by View: how far the lines scroll at the last size drawn
}

func (*helpModal) Typing() bool { return false }

// helpGroup is one titled block of keys.
type helpGroup struct {
	title string
	rows  [][2]string // key, what
}

// helpGroups is every key of the screen, grouped.
func helpGroups(k KeyMap) []helpGroup {
	r := func(b key.Binding) [2]string { return [2]string{b.Help().Key, b.Help().Desc} }
	halt := r(k.Halt)
	halt[0] = strings.Join(k.Halt.Keys(), " ")
	panes := helpGroup{title: "Panes", rows: [][2]string{r(k.NextPane), r(k.PrevPane)}}
	for _, b := range k.Pane {
		panes.rows = append(panes.rows, r(b))
	}
	return []helpGroup{
		{"Safety", [][2]string{halt, r(k.Flatten), r(k.Resume), r(k.Quit), r(k.Back), r(k.Help)}},
		{"Actions", [][2]string{r(k.Approve), r(k.Deny), r(k.DenyAll), r(k.Cancel), r(k.CancelAll), r(k.Close)}},
		{"Answers", [][2]string{r(k.Yes), {k.No.Help().Key + "/esc", "no (default)"}, {"enter", "never confirms"}}},
		panes,
		{"Move", [][2]string{r(k.Up), r(k.Down), r(k.Top), r(k.Bottom), r(k.PageUp), r(k.PageDown)}},
		{"Views", [][2]string{r(k.Details), r(k.Filter), r(k.Command), r(k.Freeze), r(k.Privacy), r(k.Mandate), r(k.Audit), r(k.AuditTail), r(k.Trades)}},
	}
}

const helpColW = 30 // one column: key and what it does

// helpLines lays the groups out in as many columns as fit inner, in order, each column
// about as tall as the others.
func helpLines(c *Common, inner int) []string {
	groups := helpGroups(c.Keys)
	ncol := max(1, min(len(groups), (inner+2)/(helpColW+2)))
	total := 0
	for _, g := range groups {
		total += len(g.rows) + 2
	}
	target := (total + ncol - 1) / ncol
	cols := make([][]string, 1, ncol)
	for _, g := range groups {
		cur := &cols[len(cols)-1]
		if len(*cur) > 0 && len(*cur)+len(g.rows)+1 > target && len(cols) < ncol {
			cols = append(cols, nil)
			cur = &cols[len(cols)-1]
		}
		if len(*cur) > 0 {
			*cur = append(*cur, "")
		}
		*cur = append(*cur, c.Styles.Header.Render(g.title))
		for _, row := range g.rows {
			*cur = append(*cur, fmt.Sprintf("  %-10s %s", row[0], row[1]))
		}
	}
	colW := helpColW
	if len(cols) == 1 {
		colW = inner
	}
	height := 0
	for _, col := range cols {
		height = max(height, len(col))
	}
	lines := make([]string, height)
	for i := range lines {
		var b strings.Builder
		for j, col := range cols {
			cell := ""
			if i < len(col) {
				cell = col[i]
			}
			if j < len(cols)-1 {
				cell = ansi.Truncate(cell, colW, "…")
				cell += strings.Repeat(" ", colW+2-ansi.StringWidth(cell))
			}
			b.WriteString(cell)
		}
		lines[i] = strings.TrimRight(b.String(), " ")
	}
	return lines
}

func (hm *helpModal) View(w, h int) string {
	mw := min(100, w-2)
	if mw < 20 {
		mw = min(w, 20)
	}
	lines := helpLines(hm.c, mw-4)
	rows := max(1, h-6) // border 2, title and gap 2, gap and footer 2
	hm.maxOff = max(0, len(lines)-rows)
	hm.off = min(hm.off, hm.maxOff)
	shown := lines[hm.off:min(len(lines), hm.off+rows)]
	foot := "esc close · H or ctrl+k halts, even here · enter never confirms"
	if hm.maxOff > 0 {
		foot = fmt.Sprintf("j/k scroll %d–%d/%d · esc close · H/ctrl+k halts", hm.off+1, hm.off+len(shown), len(lines))
	}
	body := append(append([]string(nil), shown...), "", hm.c.Styles.Muted.Render(foot))
	return frame(hm.c, "Keys", body, mw, w, h)
}

// Update scrolls; esc, q and ? close.
func (hm *helpModal) Update(msg tea.Msg) (tea.Msg, tea.Cmd) {
	k := hm.c.Keys
	page := 10
	switch {
	case isNo(hm.c, msg) || keyIs(msg, k.Help) || keyString(msg) == "q":
		return closeMsg{}, nil
	case keyIs(msg, k.Down):
		hm.off++
	case keyIs(msg, k.Up):
		hm.off--
	case keyIs(msg, k.PageDown) || keyString(msg) == "space":
		hm.off += page
	case keyIs(msg, k.PageUp):
		hm.off -= page
	case keyIs(msg, k.Top):
		hm.off = 0
	case keyIs(msg, k.Bottom):
		hm.off = hm.maxOff
	}
	hm.off = max(0, min(hm.off, hm.maxOff))
	return nil, nil
}
