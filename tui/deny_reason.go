package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"cockpit/live/termsafe"
)

// denyModal is d on a review: an optional reason line first (enter ends it, empty skips the
// reason), then y denies. enter never confirms, as the README says; esc backs out either way.
type denyModal struct {
	c       *Common
	id      string
	reason  textField
	editing bool
}

func newDenyModal(c *Common, id string) *denyModal {
	return &denyModal{c: c, id: id, reason: newTextField(""), editing: true}
}

func (d *denyModal) Typing() bool { return d.editing }

func (d *denyModal) View(w, h int) string {
	k := d.c.Styles.Key.Render
	last := k("y") + " deny    " + k("r") + " edit reason    " + k("n") + "/esc back (default)"
	if d.editing {
		last = k("enter") + " done (empty skips the reason)    " + k("esc") + " back"
	}
	return frame(d.c, "Deny "+termsafe.Text(d.id), []string{"Reason (optional): " + d.reason.View(d.editing), "", last}, 70, w, h)
}

func (d *denyModal) Update(msg tea.Msg) (tea.Msg, tea.Cmd) {
	if d.editing {
		done, cancelled := fieldKey(&d.reason, msg)
		if cancelled {
			return closeMsg{}, nil
		}
		d.editing = !done
		return nil, nil
	}
	switch {
	case keyString(msg) == "r":
		d.editing = true
	case isYes(d.c, msg):
		why := "denied from the cockpit"
		if r := strings.TrimSpace(d.reason.Value()); r != "" {
			why += ": " + r
		}
		return closeWith(deny(d.id, why)), nil
	case isNo(d.c, msg):
		return closeMsg{}, nil
	}
	return nil, nil
}
