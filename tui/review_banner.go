package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"cockpit/live/termsafe"
)

// reviewBanner is the line that makes a waiting review impossible to miss: how many wait,
// the one whose deadline comes first (its order and the countdown to its auto-deny) and the
// keys that answer it; "" when none waits. The agent keeps trading meanwhile (a review holds
// its order only).
func (b statusBar) reviewBanner(w int) string {
	s := &b.c.Data.Snap
	if len(s.Reviews) == 0 {
		return ""
	}
	next := &s.Reviews[0]
	for i := range s.Reviews {
		if s.Reviews[i].Deadline.Before(next.Deadline) {
			next = &s.Reviews[i]
		}
	}
	n := len(s.Reviews)
	unit := "review waits"
	if n > 1 {
		unit = "reviews wait"
	}
	acts := []string{b.c.Keys.Pane[paneApprovals].Help().Key + " open"}
	for _, a := range []struct{ action, key string }{{"approve", b.c.Keys.Approve.Help().Key}, {"deny", b.c.Keys.Deny.Help().Key}} {
		if b.c.may(a.action) {
			acts = append(acts, a.key+" "+a.action)
		}
	}
	left := countdown(next.Deadline.Sub(b.c.Now()))
	id, keys := termsafe.Text(next.ID), strings.Join(acts, " · ")
	// The widest form that fits: the order shown, then without it, then the keys alone.
	forms := []string{
		fmt.Sprintf(" ⏳ %d %s for you — %s %s — auto-denied in %s — %s", n, unit, id, reviewOrder(next, b.c.Privacy), left, keys),
		fmt.Sprintf(" ⏳ %d %s for you — %s auto-denied in %s — %s", n, unit, id, left, keys),
		fmt.Sprintf(" ⏳ %d %s — %s auto-denied in %s — %s", n, unit, id, left, keys),
	}
	text := forms[len(forms)-1]
	for _, f := range forms {
		if ansi.StringWidth(f) <= w {
			text = f
			break
		}
	}
	return b.c.Styles.Warn.Render(fit(text, w))
}
