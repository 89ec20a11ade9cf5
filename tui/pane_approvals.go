package tui

import (
	"context"
	"fmt"
	"sort"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"cockpit/live"
	"cockpit/live/termsafe"
)

// approvalsPane is the review queue: a approves once after a y/N card; d denies at once
// (denying is safe); D denies every waiting item. It is never frozen: its deadlines run.
type approvalsPane struct{ list }

func newApprovalsPane(c *Common) *approvalsPane {
	p := &approvalsPane{list{paneBase: paneBase{c: c, index: paneApprovals}}}
	p.all = p.reviewRows
	return p
}

func (p *approvalsPane) Count() string {
	if n := len(p.c.Data.Snap.Reviews); n > 0 {
		return fmt.Sprintf(" (%d!)", n)
	}
	return " (0)"
}

func (p *approvalsPane) View() string {
	if p.h < 3 {
		return ""
	}
	iw, ih := p.w-2, p.h-2
	lines := p.lines("", p.filtered(), iw, ih-1, false)
	lines = append(padTo(lines, ih-1), p.c.Styles.Muted.Render(" a approve · d deny · D deny all · enter details"))
	return p.box(p.Count(), false, lines)
}

func (p *approvalsPane) ShortHelp() []key.Binding {
	return []key.Binding{hint("a/d/D", "approve/deny/all"), hint("enter", "details")}
}

// Update: an item past its deadline cannot be approved.
func (p *approvalsPane) Update(msg tea.Msg) (tea.Msg, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || p.moveKey(msg) {
		return nil, nil
	}
	keys := p.c.Keys
	switch {
	case key.Matches(k, keys.Approve):
		it, ok := p.selectedReview()
		if !ok {
			return nil, nil
		}
		if !it.Deadline.After(p.c.Now()) {
			return flashMsg("review " + termsafe.Text(it.ID) + " is past its deadline: it is denied (approval_timeout)"), nil
		}
		return openModalMsg{newApproveModal(p.c, it)}, nil
	case key.Matches(k, keys.Deny):
		if it, ok := p.selectedReview(); ok {
			return openModalMsg{newDenyModal(p.c, it.ID)}, nil
		}
	case key.Matches(k, keys.DenyAll):
		var all answers
		for _, it := range p.c.Data.Snap.Reviews {
			all = append(all, deny(it.ID, "denied from the cockpit (deny all)"))
		}
		return all, nil
	}
	return nil, nil
}

func deny(id, reason string) actionMsg {
	return actionMsg{what: ActDeny, id: id, run: func(ctx context.Context, be Backend) (string, error) { return "", be.Deny(ctx, id, reason) }}
}

// Details is the approval card of the selected item.
func (p *approvalsPane) Details() tea.Msg {
	id := p.SelectedID()
	if id == "" {
		return nil
	}
	if it, ok := p.selectedReview(); ok {
		return openModalMsg{newApproveModal(p.c, it)}
	}
	return p.detailsOf(id, nil)
}

// selectedReview returns the selected pending review item.
func (p *approvalsPane) selectedReview() (live.ReviewItem, bool) {
	if id := p.SelectedID(); id != "" {
		for _, it := range p.c.Data.Snap.Reviews {
			if it.ID == id {
				return it, true
			}
		}
	}
	return live.ReviewItem{}, false
}

func (p *approvalsPane) reviewRows() []row {
	items := append([]live.ReviewItem(nil), p.c.Data.Snap.Reviews...)
	sort.SliceStable(items, func(i, j int) bool { return items[i].Created.Before(items[j].Created) })
	out := make([]row, 0, len(items))
	for _, it := range items {
		out = append(out, row{id: it.ID, n: 2, draw: func(bool) []string { return p.reviewLines(it) }})
	}
	return out
}

func (p *approvalsPane) reviewLines(it live.ReviewItem) []string {
	st := p.c.Styles
	left := it.Deadline.Sub(p.c.Now())
	clock := "⏳ " + countdown(left)
	if left <= 0 {
		clock = st.Critical.Render("TIMED OUT")
	} else if left < 30e9 {
		clock = st.Critical.Render(clock)
	}
	first := fmt.Sprintf("%-12s %s  %s", clip(termsafe.Text(it.ID), 12), reviewOrder(&it, p.c.Privacy), clock)
	second := "    " + reviewReason(&it)
	if p.c.Privacy {
		second = maskDigits(second)
	}
	return []string{first, second}
}

// reviewOrder is "BUY $6,000 AAPL" or "SELL 10 TSLA @ 245".
func reviewOrder(it *live.ReviewItem, privacy bool) string {
	if it.Order == nil {
		return "?"
	}
	mask := ""
	if privacy {
		mask = "$•••"
	}
	return termsafe.Text(it.OrderText(true, mask))
}

func reviewReason(it *live.ReviewItem) string {
	switch {
	case it.Limit != "":
		more := ""
		if n := len(it.Breaches); n > 1 {
			more = fmt.Sprintf(" (+%d more)", n-1)
		}
		return fmt.Sprintf("breach: %s %s > %s%s", it.Limit, roundText(it.Attempted), roundText(it.LimitValue), more)
	case it.Why == "escalated":
		return "escalated: the turn read flagged outside content"
	}
	return "supervised: every order waits for a human"
}

func reviewLine(it *live.ReviewItem, privacy bool) string {
	return reviewOrder(it, privacy) + " — " + reviewReason(it)
}
