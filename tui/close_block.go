package tui

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"

	"cockpit/live/termsafe"
)

// closeModal is x on a position: close it, or close it and block the symbol for the session
// so the agent cannot buy it back (the block goes first: it stands even if the close fails).
type closeModal struct {
	confirmModal
	sym string
}

func (q *closeModal) View(w, h int) string {
	k := q.c.Styles.Key.Render
	lines := append(append([]string(nil), q.body...), "",
		k("y")+" close    "+k("n")+"/esc no (default)",
		k("b")+" close and block "+q.sym+": the agent's orders in it are denied",
		"  for this session (:unblock "+q.sym+" lifts the block)")
	return frame(q.c, q.title, lines, 70, w, h)
}

func (q *closeModal) Update(msg tea.Msg) (tea.Msg, tea.Cmd) {
	if keyString(msg) == "b" {
		return closeWith(closeAndBlock(q.sym)), nil
	}
	return q.confirmModal.Update(msg)
}

// closeAndBlock blocks the symbol, then closes the position.
func closeAndBlock(sym string) actionMsg {
	return actionMsg{what: ActBlock, id: sym, run: func(ctx context.Context, be Backend) (string, error) {
		if err := be.Block(ctx, sym, "operator closed and blocked "+sym+" from the screen"); err != nil {
			return "", err
		}
		return "", be.ClosePosition(ctx, sym)
	}}
}

// unblock is the palette's :unblock SYMBOL.
func unblock(arg string) tea.Msg {
	sym := strings.ToUpper(strings.TrimSpace(arg))
	if sym == "" {
		return flashMsg("usage: :unblock SYMBOL")
	}
	return actionMsg{what: ActUnblock, id: sym, run: func(ctx context.Context, be Backend) (string, error) {
		return "", be.Unblock(ctx, sym, "command :unblock "+sym)
	}}
}

// blockedSeg is the status bar's block list segment, "" when nothing is blocked.
func blockedSeg(s *Snapshot) string {
	if len(s.Blocked) == 0 {
		return ""
	}
	return "⊘ blocked " + termsafe.Text(strings.Join(s.Blocked, ","))
}
