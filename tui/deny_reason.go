package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// denyModal is d on a review: an optional reason line; enter denies (an empty line skips the
// reason), esc goes back without denying.
type denyModal struct {
	c      *Common
	id     string
	reason textField
}

func newDenyModal(c *Common, id string) *denyModal {
	return &denyModal{c: c, id: id, reason: newTextField("")}
}

func (d *denyModal) Typing() bool { return true }

func (d *denyModal) View(w, h int) string {
	k := d.c.Styles.Key.Render
	return frame(d.c, "Deny "+d.id, []string{
		"Reason (optional): " + d.reason.View(true),
		"",
		k("enter") + " deny (empty skips the reason)    " + k("esc") + " back",
	}, 70, w, h)
}

func (d *denyModal) Update(msg tea.Msg) (tea.Msg, tea.Cmd) {
	done, cancelled := fieldKey(&d.reason, msg)
	switch {
	case cancelled:
		return closeMsg{}, nil
	case done:
		why := "denied from the cockpit"
		if r := strings.TrimSpace(d.reason.Value()); r != "" {
			why += ": " + r
		}
		return closeWith(deny(d.id, why)), nil
	}
	return nil, nil
}
