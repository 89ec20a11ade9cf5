package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// OrderTrail is how an order came to be placed: the agent's own reason (untrusted text) and
// every audited step, oldest first.
type OrderTrail struct {
	Reason string      // the agent's stated reason, as the agent wrote it
	Steps  []TrailStep // policy, gate, breach, approval and broker events, oldest first
}

// TrailStep is one audited event of an order's trail.
type TrailStep struct {
	Time    string   // HH:MM:SS
	What    string   // e.g. "tool_call place_order", "gate allow"
	Outcome string   // the event's outcome and reason
	Checked []string // the gate's steps, in order, for a gate decision
	Breach  string   // the limit breached and by how much, "" for none
	Approve string   // the approval that let the breach through, "" for none
}

// trailLines renders a trail for the order details drawer, wrapped to width w.
func (c *Common) trailLines(t OrderTrail, w int) []string {
	reason := untrusted(t.Reason, 600)
	if reason == "" {
		reason = "(none given)"
	}
	out := []string{"", "Agent's reason (UNTRUSTED, as the agent wrote it):"}
	for _, l := range wrapWords(reason, w-2) {
		out = append(out, "  "+l)
	}
	out = append(out, "", "Decision trail:")
	if len(t.Steps) == 0 {
		return append(out, "  (no audited steps found for this order)")
	}
	for _, s := range t.Steps {
		for i, l := range wrapWords(untrusted(s.What+"  "+s.Outcome, 0), w-12) {
			lead := "            "
			if i == 0 {
				lead = "  " + s.Time + "  "
			}
			out = append(out, lead+l)
		}
		if len(s.Checked) > 0 {
			for _, l := range wrapWords(untrusted("checked: "+strings.Join(s.Checked, " → "), 0), w-12) {
				out = append(out, "            "+l)
			}
		}
		if s.Breach != "" {
			out = append(out, "            breach: "+untrusted(s.Breach, 0))
		}
		if s.Approve != "" {
			out = append(out, "            approved: "+untrusted(s.Approve, 0))
		}
	}
	return out
}

// wrapWords breaks text into lines of at most w cells at spaces; a word longer than w is cut.
func wrapWords(text string, w int) []string {
	w = max(w, 10)
	var out []string
	line := ""
	for _, word := range strings.Fields(text) {
		for len([]rune(word)) > w {
			r := []rune(word)
			if line != "" {
				out, line = append(out, line), ""
			}
			out, word = append(out, string(r[:w])), string(r[w:])
		}
		switch {
		case line == "":
			line = word
		case len([]rune(line))+1+len([]rune(word)) <= w:
			line += " " + word
		default:
			out, line = append(out, line), word
		}
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}

// keyedDetails is a details drawer whose extra keys act on its row (c cancels the order shown).
type keyedDetails struct {
	*detailsModal
	act func(tea.Msg) tea.Msg // an answer for the key, nil to let the drawer handle it
}

func (k *keyedDetails) Update(msg tea.Msg) (tea.Msg, tea.Cmd) {
	if a := k.act(msg); a != nil {
		return a, nil
	}
	return k.detailsModal.Update(msg)
}
