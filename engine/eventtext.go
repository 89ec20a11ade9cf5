package engine

import (
	"fmt"
	"strings"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/redact"
	"cockpit/live/termsafe"
)

// Text renders an event as one line of plain text (the headless console). Agent text is
// collapsed to one line; tool results and arguments are not printed; the line is redacted like
// the audit store (a tool error may quote a credential), and what an agent, a client or a
// broker wrote in it (a symbol, an order id, an error) shows its control characters escaped
// (termsafe.Text): it never drives the operator's terminal.
func (e Event) Text() string { return termsafe.Text(redact.Secrets(e.text())) }

func (e Event) text() string {
	switch e.Kind {
	case EvToolCall:
		if e.Result == nil {
			return fmt.Sprintf("call    %s", e.Tool)
		}
		r := e.Result
		switch {
		case r.Status == StatusOK:
			return fmt.Sprintf("call    %-15s ok", e.Tool)
		case r.Code == live.ReasonCancelled: // stopped (--for, a quit, a halt), not refused
			return fmt.Sprintf("call    %-15s cancelled: %s", e.Tool, oneLine(r.Detail))
		case r.Decision == live.DecisionAsk || strings.HasPrefix(string(r.Code), "approval_") || r.Code == live.ReasonNoApprover:
			return fmt.Sprintf("call    %-15s %s: %s", e.Tool, r.Code, oneLine(r.Detail))
		}
		return fmt.Sprintf("call    %-15s %s %s: %s", e.Tool, strings.ToUpper(string(r.Status)), r.Code, oneLine(r.Detail))
	case EvDecision:
		return decisionText(e.Decision)
	case EvOrderUpdate:
		if e.Order == nil {
			return "order   update"
		}
		o := e.Order.Order
		if e.Order.FillQty.Sign() > 0 {
			return fmt.Sprintf("fill    %s %s %s @ %s (order %s, %s)", o.Side, e.Order.FillQty, o.Symbol, e.Order.FillPx, o.ID, o.Status)
		}
		return fmt.Sprintf("order   %s %s %s (%s)", o.ID, o.Side, o.Symbol, o.Status)
	case EvReviewCreated, EvReviewResolved:
		it := e.Review
		if it == nil {
			return "review"
		}
		if e.Kind == EvReviewCreated {
			return fmt.Sprintf("REVIEW  %s waits for a human until %s: %s %s",
				it.ID, it.Deadline.UTC().Format("15:04:05"), orderText(it), oneLine(it.Detail))
		}
		by := ""
		if it.ResolvedBy != "" {
			by = " by " + it.ResolvedBy
		}
		return fmt.Sprintf("review  %s %s%s %s", it.ID, strings.ToUpper(string(it.State)), by, oneLine(it.Resolution))
	case EvReviewOutcome:
		if e.Review == nil {
			return "review  outcome"
		}
		return fmt.Sprintf("review  %s %s", e.Review.ID, oneLine(e.Review.Outcome))
	case EvHalt:
		if e.Halt == nil {
			return "halt"
		}
		switch {
		case e.Halt.Halted:
			return fmt.Sprintf("HALT    %s is halted (%s): agent paused", e.Halt.Broker, e.Halt.Cause)
		case e.Halt.ReduceOnly:
			return fmt.Sprintf("state   %s is reduce-only", e.Halt.Broker)
		}
		return fmt.Sprintf("state   %s is trading", e.Halt.Broker)
	case EvFlatten:
		if p := e.Flatten; p != nil {
			mark := "ok"
			if !p.OK {
				mark = "FAILED " + p.Err
			}
			return fmt.Sprintf("flatten %s %d/%d %s %s", p.Phase, p.Done, p.Total, p.Item, mark)
		}
		if e.Report != nil {
			return "flatten " + e.Report.Summary()
		}
	case EvLossLimit:
		if e.Loss != nil {
			return "HALT    " + e.Loss.Message() + ": agent paused"
		}
	case EvFinding:
		if f := e.Finding; f != nil {
			return fmt.Sprintf("WARN    %s in %s (%s): %q", f.RuleID, e.Tool, f.Severity, f.Match)
		}
	case EvTurnStarted:
		return fmt.Sprintf("turn    %d started (%s)", e.Turn, e.Agent)
	case EvTurnEnded:
		return fmt.Sprintf("turn    %d ended: %s", e.Turn, e.Message)
	case EvLLM:
		return "llm     " + e.Message
	case EvNote:
		return fmt.Sprintf("agent   %q", e.Message)
	case EvError:
		return "ERROR   " + oneLine(e.Message)
	}
	return fmt.Sprintf("%-7s %s", e.Kind, oneLine(e.Message))
}

func decisionText(d *gate.Decision) string {
	if d == nil {
		return "decision"
	}
	intent := "order"
	if d.Intent != nil {
		intent = d.Intent.Describe()
	}
	switch d.Verdict {
	case live.Allow:
		switch d.Outcome {
		case live.OutcomeAccepted:
			id := ""
			if d.Order != nil {
				id = " → order " + d.Order.ID
			}
			grant := ""
			if d.ApprovalID != "" {
				grant = " (approved " + d.ApprovalID + ")"
			}
			return fmt.Sprintf("ALLOW   %s%s%s [%d today]", intent, grant, id, d.Count)
		case live.OutcomeIndeterminate:
			return fmt.Sprintf("ALLOW   %s → INDETERMINATE, reconciling: %s", intent, oneLine(d.Message()))
		}
		return fmt.Sprintf("ALLOW   %s → broker %s: %s", intent, d.Outcome, oneLine(d.Message()))
	case live.PauseForReauth:
		return fmt.Sprintf("ASK     %s: %s", intent, oneLine(d.Message()))
	}
	if d.Denial != nil && d.Denial.Code == live.ReasonCancelled { // cut off by the stop, nothing sent
		return fmt.Sprintf("cancel  %s: the call was cut off before it was sent", intent)
	}
	return fmt.Sprintf("DENY    %s: %s", intent, oneLine(d.Message()))
}

func orderText(it *live.ReviewItem) string {
	if it.Order == nil {
		return ""
	}
	return it.OrderText(false, "") + " —"
}

// oneLine collapses whitespace and bounds the length of text shown on one line.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 160 {
		s = string(r[:160]) + "…"
	}
	return s
}
