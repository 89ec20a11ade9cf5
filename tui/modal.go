package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"cockpit/live"
	"cockpit/live/termsafe"
)

// modal is an overlay that takes the keys while it is open (halt excepted). It never
// touches the root: it answers with a message (answers.go) that the root acts on at once.
type modal interface {
	// Update handles a key, a paste, or a result meant for the modal (an audit page, a commit).
	Update(msg tea.Msg) (answer tea.Msg, cmd tea.Cmd)
	// View draws the modal to fit a w×h screen.
	View(w, h int) string
	// Typing reports whether a text field has the keys (H types an H; ctrl+k still halts).
	Typing() bool
}

// frame draws a modal box of the given lines, at most maxW wide and fitting the screen.
func frame(c *Common, title string, lines []string, maxW, w, h int) string {
	mw, inner := frameWidths(maxW, w)
	var body []string
	body = append(body, c.Styles.Title.Render(title), "")
	for _, l := range lines {
		body = append(body, fit(l, inner))
	}
	if len(body) > h-2 && h > 4 {
		body = body[:h-2]
	}
	return c.Styles.Modal.Width(mw).Render(strings.Join(body, "\n"))
}

// frameWidths is a frame's outer width on a screen w wide (at most maxW) and the width of
// the text inside it.
func frameWidths(maxW, w int) (outer, inner int) {
	outer = min(maxW, w-2)
	if outer < 20 {
		outer = min(w, 20)
	}
	return outer, outer - 4
}

func isYes(c *Common, msg tea.Msg) bool {
	k, ok := msg.(tea.KeyPressMsg)
	return ok && key.Matches(k, c.Keys.Yes)
}

// isNo: n, N and esc close a question; enter is never an answer.
func isNo(c *Common, msg tea.Msg) bool {
	k, ok := msg.(tea.KeyPressMsg)
	return ok && (key.Matches(k, c.Keys.No) || key.Matches(k, c.Keys.Back))
}

func keyIs(msg tea.Msg, b key.Binding) bool {
	k, ok := msg.(tea.KeyPressMsg)
	return ok && key.Matches(k, b)
}

func keyString(msg tea.Msg) string {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		return k.String()
	}
	return ""
}

// confirmModal asks y/N before a risky action; y answers yes.
type confirmModal struct {
	c     *Common
	title string
	body  []string
	yes   tea.Msg
}

func (q *confirmModal) Typing() bool { return false }

func (q *confirmModal) View(w, h int) string {
	k := q.c.Styles.Key.Render
	lines := append(append([]string(nil), q.body...), "", k("y")+" yes    "+k("n")+"/esc no (default)")
	return frame(q.c, q.title, lines, 70, w, h)
}

func (q *confirmModal) Update(msg tea.Msg) (tea.Msg, tea.Cmd) {
	switch {
	case isYes(q.c, msg):
		return closeWith(q.yes), nil
	case isNo(q.c, msg):
		return closeMsg{}, nil
	}
	return nil, nil
}

// quitModal asks what happens to resting orders; the count is the live one, since the
// agent keeps trading while the question is open.
type quitModal struct{ c *Common }

func (q *quitModal) Typing() bool { return false }

func (q *quitModal) View(w, h int) string {
	if q.c.Remote {
		return q.remoteView(w, h)
	}
	k := q.c.Styles.Key.Render
	n := len(q.c.Data.Snap.Orders)
	first := "The agent stops."
	if q.c.Data.Snap.Supervising != "" {
		first = "This screen detaches; the owning process keeps running."
	}
	return frame(q.c, "Quit cockpit", []string{
		first,
		fmt.Sprintf("%d resting order%s at the broker unless you halt.", n, map[bool]string{true: " stays", false: "s stay"}[n == 1]),
		"",
		k("h") + "  halt and cancel resting orders, then quit",
		k("y") + "  quit and leave resting orders",
		k("n") + "  back (default; esc too)",
		"",
		"ctrl+c again within 2 s = h",
	}, 70, w, h)
}

func (q *quitModal) Update(msg tea.Msg) (tea.Msg, tea.Cmd) {
	switch {
	case keyString(msg) == "h":
		return quitMsg{QuitHalt}, nil
	case isYes(q.c, msg):
		return quitMsg{QuitLeave}, nil
	case isNo(q.c, msg):
		return closeMsg{}, nil
	}
	return nil, nil
}

// resumeModal removes the halt after y/N, with an editable reason.
type resumeModal struct {
	c       *Common
	reason  textField
	editing bool
}

func newResumeModal(c *Common) *resumeModal {
	return &resumeModal{c: c, reason: newTextField("operator resumed from the cockpit")}
}

func (r *resumeModal) Typing() bool { return r.editing }

func (r *resumeModal) View(w, h int) string {
	k := r.c.Styles.Key.Render
	lines := []string{
		fmt.Sprintf("Trading is %s. Resuming removes every HALT and REDUCE_ONLY", r.c.Data.State()),
		"file that stops " + r.c.Data.Snap.Broker + " (global ones too); the agent trades again.",
		"",
		"Reason: " + r.reason.View(r.editing),
		"",
	}
	if r.editing {
		lines = append(lines, "type the reason · "+k("enter")+" done · "+k("esc")+" back")
	} else {
		lines = append(lines, k("y")+" resume    "+k("r")+" edit reason    "+k("n")+"/esc back (default)")
	}
	return frame(r.c, "Resume trading", lines, 76, w, h)
}

func (r *resumeModal) Update(msg tea.Msg) (tea.Msg, tea.Cmd) {
	if r.editing {
		if done, _ := fieldKey(&r.reason, msg); done {
			r.editing = false
		}
		return nil, nil
	}
	switch {
	case keyString(msg) == "r":
		r.editing = true
	case isYes(r.c, msg):
		why := strings.TrimSpace(r.reason.Value())
		if why == "" {
			why = "operator resumed from the cockpit"
		}
		return closeWith(actionMsg{what: ActResume, run: func(ctx context.Context, be Backend) (string, error) { return "", be.Resume(ctx, why) }}), nil
	case isNo(r.c, msg):
		return closeMsg{}, nil
	}
	return nil, nil
}

// approveModal is the card a human approves once.
type approveModal struct {
	c    *Common
	item live.ReviewItem
}

func newApproveModal(c *Common, it live.ReviewItem) *approveModal {
	return &approveModal{c: c, item: it}
}

func (a *approveModal) Typing() bool { return false }

func (a *approveModal) View(w, h int) string {
	it := a.item
	k := a.c.Styles.Key.Render
	left := it.Deadline.Sub(a.c.Now())
	lines := []string{
		"Order:   " + reviewOrder(&it, a.c.Privacy),
		"Why:     " + reviewReason(&it),
	}
	if len(it.Breaches) > 0 {
		lines = append(lines, reviewBreachLines(it)...)
	} else {
		if it.Detail != "" {
			lines = append(lines, "Detail:  "+untrusted(it.Detail, 200))
		}
		lines = append(lines, afterFill(it)...)
	}
	lines = append(lines,
		"Agent's reason (UNTRUSTED): \""+untrusted(it.AgentReason, 200)+"\"",
		"Digest:  "+clip(it.Digest, 24),
		fmt.Sprintf("Deadline: %s (%s left)", it.Deadline.UTC().Format("15:04:05"), countdown(left)),
		"",
		"Approving grants this exact order once. The gate runs again before it goes,",
		"and the approval covers only the breach"+plural(max(len(it.Breaches), 1))+" shown.",
		"",
		k("y")+" approve once    "+k("n")+"/esc back (default)",
	)
	if left <= 0 {
		lines[len(lines)-1] = a.c.Styles.Critical.Render("TIMED OUT — denied (approval_timeout)") + "   esc back"
	}
	return frame(a.c, "Approve "+termsafe.Text(it.ID)+"?", lines, 84, w, h)
}

// reviewBreachLines lists every breach the order had when it was asked: the approval covers
// these and nothing else.
func reviewBreachLines(it live.ReviewItem) []string {
	lines := []string{fmt.Sprintf("Breaches (%d, all covered by this approval):", len(it.Breaches))}
	for _, b := range it.Breaches {
		lines = append(lines, fmt.Sprintf("  • %s = %s; this order makes it %s", b.Limit, b.LimitValue, b.Attempted))
	}
	return lines
}

// afterFill shows the breached limit's headroom now and after the order.
func afterFill(it live.ReviewItem) []string {
	if it.Limit == "" {
		return nil
	}
	return []string{fmt.Sprintf("Limit:   %s = %s; this order makes it %s", it.Limit, it.LimitValue, it.Attempted)}
}

// Update: y approves once, unless the deadline passed while the card was open.
func (a *approveModal) Update(msg tea.Msg) (tea.Msg, tea.Cmd) {
	switch {
	case isYes(a.c, msg):
		it := a.item
		if !it.Deadline.After(a.c.Now()) {
			return closeWith(flashMsg("review " + termsafe.Text(it.ID) + " passed its deadline while open: not approved")), nil
		}
		return closeWith(actionMsg{what: ActApprove, id: it.ID, run: func(ctx context.Context, be Backend) (string, error) {
			return "", be.Approve(ctx, it.ID, "approved once from the cockpit")
		}}), nil
	case isNo(a.c, msg):
		return closeMsg{}, nil
	}
	return nil, nil
}

// inputModal reads one line (filter, command) and answers with what submit makes of it.
type inputModal struct {
	c      *Common
	title  string
	in     textField
	submit func(v string) tea.Msg
}

func newInput(c *Common, title, value string, submit func(v string) tea.Msg) *inputModal {
	return &inputModal{c: c, title: title, in: newTextField(value), submit: submit}
}

func (i *inputModal) Typing() bool { return true }

func (i *inputModal) View(w, h int) string {
	return frame(i.c, i.title, []string{i.in.View(true), "", "enter apply · esc cancel · ctrl+k halts"}, 70, w, h)
}

func (i *inputModal) Update(msg tea.Msg) (tea.Msg, tea.Cmd) {
	done, cancelled := fieldKey(&i.in, msg)
	switch {
	case cancelled:
		return closeMsg{}, nil
	case done:
		return closeWith(i.submit(strings.TrimSpace(i.in.Value()))), nil
	}
	return nil, nil
}
