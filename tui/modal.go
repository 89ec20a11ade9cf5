package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"cockpit/live"
)

// modal is an overlay that takes the keys while it is open (halt excepted).
type modal interface {
	view(m *Model, w, h int) string
	key(m *Model, k tea.KeyPressMsg) tea.Cmd
	typing() bool // a text field has the keys (H types an H; ctrl+k still halts)
}

// frame draws a modal box of the given lines, at most maxW wide and fitting the screen.
func frame(m *Model, title string, lines []string, maxW, w, h int) string {
	mw := min(maxW, w-2)
	if mw < 20 {
		mw = min(w, 20)
	}
	inner := mw - 4
	var body []string
	body = append(body, m.c.Styles.Title.Render(title), "")
	for _, l := range lines {
		body = append(body, fit(l, inner))
	}
	if len(body) > h-2 && h > 4 {
		body = body[:h-2]
	}
	return m.c.Styles.Modal.Width(mw).Render(strings.Join(body, "\n"))
}

func isYes(m *Model, k tea.KeyPressMsg) bool { return key.Matches(k, m.c.Keys.Yes) }

// isNo: n, N and esc close a question; enter is never an answer.
func isNo(m *Model, k tea.KeyPressMsg) bool {
	return key.Matches(k, m.c.Keys.No) || key.Matches(k, m.c.Keys.Back)
}

// confirmModal asks y/N before a risky action.
type confirmModal struct {
	title string
	body  []string
	yes   func(m *Model) tea.Cmd
}

func (c *confirmModal) typing() bool { return false }

func (c *confirmModal) view(m *Model, w, h int) string {
	lines := append(append([]string(nil), c.body...), "", m.c.Styles.Key.Render("y")+" yes    "+m.c.Styles.Key.Render("n")+"/esc no (default)")
	return frame(m, c.title, lines, 70, w, h)
}

func (c *confirmModal) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	switch {
	case isYes(m, k):
		m.modal = nil
		return c.yes(m)
	case isNo(m, k):
		m.modal = nil
	}
	return nil
}

// quitModal asks what happens to resting orders; the count is the live one, since the
// agent keeps trading while the question is open.
type quitModal struct{}

func (q *quitModal) typing() bool { return false }

func (q *quitModal) view(m *Model, w, h int) string {
	k := m.c.Styles.Key.Render
	n := len(m.snap.Orders)
	return frame(m, "Quit cockpit", []string{
		"The agent stops.",
		fmt.Sprintf("%d resting order%s at the broker unless you halt.", n, map[bool]string{true: " stays", false: "s stay"}[n == 1]),
		"",
		k("h") + "  halt and cancel resting orders, then quit",
		k("y") + "  quit and leave resting orders",
		k("n") + "  back (default; esc too)",
		"",
		"ctrl+c again within 2 s = h",
	}, 70, w, h)
}

func (q *quitModal) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	switch {
	case k.String() == "h":
		m.quit = QuitHalt
		return tea.Quit
	case isYes(m, k):
		m.quit = QuitLeave
		return tea.Quit
	case isNo(m, k):
		m.modal = nil
	}
	return nil
}

// resumeModal removes the halt after y/N, with an editable reason.
type resumeModal struct {
	reason  lineInput
	editing bool
}

func newResumeModal(m *Model) *resumeModal {
	return &resumeModal{reason: lineInput{value: "operator resumed from the cockpit"}}
}

func (r *resumeModal) typing() bool { return r.editing }

func (r *resumeModal) view(m *Model, w, h int) string {
	k := m.c.Styles.Key.Render
	lines := []string{
		fmt.Sprintf("Trading is %s. Resuming removes every HALT and REDUCE_ONLY", m.state()),
		"file that stops " + m.snap.Broker + " (global ones too); the agent trades again.",
		"",
		"Reason: " + r.reason.view(r.editing),
		"",
	}
	if r.editing {
		lines = append(lines, "type the reason · "+k("enter")+" done · "+k("esc")+" back")
	} else {
		lines = append(lines, k("y")+" resume    "+k("r")+" edit reason    "+k("n")+"/esc back (default)")
	}
	return frame(m, "Resume trading", lines, 76, w, h)
}

func (r *resumeModal) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	if r.editing {
		if done, _ := r.reason.key(k); done {
			r.editing = false
		}
		return nil
	}
	switch {
	case k.String() == "r":
		r.editing = true
	case isYes(m, k):
		m.modal = nil
		why, be := strings.TrimSpace(r.reason.value), m.be
		if why == "" {
			why = "operator resumed from the cockpit"
		}
		return m.act("resume", "", func(ctx context.Context) (string, error) { return "", be.Resume(ctx, why) })
	case isNo(m, k):
		m.modal = nil
	}
	return nil
}

// approveModal is the card a human approves once.
type approveModal struct{ item live.ReviewItem }

func (a *approveModal) typing() bool { return false }

func (a *approveModal) view(m *Model, w, h int) string {
	it := a.item
	k := m.c.Styles.Key.Render
	left := it.Deadline.Sub(m.now())
	lines := []string{
		"Order:   " + reviewOrder(&it, m),
		"Why:     " + reviewReason(&it),
	}
	if len(it.Breaches) > 0 {
		lines = append(lines, reviewBreachLines(it)...)
	} else {
		if it.Detail != "" {
			lines = append(lines, "Detail:  "+untrusted(it.Detail, 200))
		}
		lines = append(lines, m.afterFill(it)...)
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
		lines[len(lines)-1] = m.c.Styles.Critical.Render("TIMED OUT — denied (approval_timeout)") + "   esc back"
	}
	return frame(m, "Approve "+it.ID+"?", lines, 84, w, h)
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
func (m *Model) afterFill(it live.ReviewItem) []string {
	if it.Limit == "" {
		return nil
	}
	return []string{fmt.Sprintf("Limit:   %s = %s; this order makes it %s", it.Limit, it.LimitValue, it.Attempted)}
}

func (a *approveModal) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	switch {
	case isYes(m, k):
		m.modal = nil
		return m.approve(a.item)
	case isNo(m, k):
		m.modal = nil
	}
	return nil
}

// helpModal lists every key.
type helpModal struct{}

func (helpModal) typing() bool { return false }

func (helpModal) view(m *Model, w, h int) string {
	var lines []string
	groups := []string{"Safety", "Navigation", "Views", "Actions"}
	for i, g := range m.c.Keys.FullHelp() {
		lines = append(lines, m.c.Styles.Header.Render(groups[i]))
		for _, b := range g {
			lines = append(lines, fmt.Sprintf("  %-12s %s", b.Help().Key, b.Help().Desc))
		}
	}
	lines = append(lines, "", "H and ctrl+k halt from anywhere, even here. esc never quits; enter never confirms.")
	return frame(m, "Keys", lines, 80, w, h)
}

func (helpModal) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	if isNo(m, k) || key.Matches(k, m.c.Keys.Help) || k.String() == "q" {
		m.modal = nil
	}
	return nil
}

// detailsModal shows lines about the selected row.
type detailsModal struct {
	title string
	lines []string
	top   int
}

func (d *detailsModal) typing() bool { return false }

func (d *detailsModal) view(m *Model, w, h int) string {
	lines := d.lines
	if d.top < len(lines) {
		lines = lines[d.top:]
	}
	return frame(m, d.title, append(append([]string(nil), lines...), "", "j/k scroll · esc close"), 96, w, h)
}

func (d *detailsModal) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	switch {
	case isNo(m, k) || key.Matches(k, m.c.Keys.Details):
		m.modal = nil
	case key.Matches(k, m.c.Keys.Down):
		d.top = min(d.top+1, max(0, len(d.lines)-1))
	case key.Matches(k, m.c.Keys.Up):
		d.top = max(0, d.top-1)
	}
	return nil
}

// inputModal reads one line (filter, command).
type inputModal struct {
	title  string
	in     lineInput
	submit func(m *Model, v string) tea.Cmd
}

func newInput(title, value string, submit func(m *Model, v string) tea.Cmd) *inputModal {
	return &inputModal{title: title, in: lineInput{value: value}, submit: submit}
}

func (i *inputModal) typing() bool { return true }

func (i *inputModal) view(m *Model, w, h int) string {
	return frame(m, i.title, []string{i.in.view(true), "", "enter apply · esc cancel · ctrl+k halts"}, 70, w, h)
}

func (i *inputModal) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	done, cancelled := i.in.key(k)
	switch {
	case cancelled:
		m.modal = nil
	case done:
		m.modal = nil
		return i.submit(m, strings.TrimSpace(i.in.value))
	}
	return nil
}

// lineInput is a one-line text field.
type lineInput struct{ value string }

// key edits the field; enter finishes, esc cancels.
func (l *lineInput) key(k tea.KeyPressMsg) (done, cancelled bool) {
	switch k.String() {
	case "enter":
		return true, false
	case "esc":
		return false, true
	case "backspace":
		if r := []rune(l.value); len(r) > 0 {
			l.value = string(r[:len(r)-1])
		}
	case "ctrl+u":
		l.value = ""
	case "space":
		l.value += " "
	default:
		if k.Text != "" && ansi.StringWidth(k.Text) > 0 && len([]rune(l.value)) < 200 {
			l.value += k.Text
		}
	}
	return false, false
}

func (l *lineInput) view(active bool) string {
	if active {
		return l.value + "█"
	}
	return l.value
}
