package main

import (
	"strings"
	"testing"

	"cockpit/engine"
	"cockpit/live"
	"cockpit/live/gate"
)

// TestCallsCutOffAtStopCountAsCancelled: a call the --for deadline (or a quit) cut off is
// "cancelled" in the log line and the summary, not a refusal (issue 12).
func TestCallsCutOffAtStopCountAsCancelled(t *testing.T) {
	ev := engine.Event{Kind: engine.EvToolCall, Tool: "place_order", Result: &engine.Result{Status: engine.StatusDenied,
		Decision: live.DecisionDeny, Code: live.ReasonCancelled, Detail: "the call was cancelled before it ran: context deadline exceeded"}}
	tl := &tally{reviews: map[string]int{}, denials: map[string]int{}}
	tl.add(ev)
	if tl.cancelled != 1 || len(tl.denials) != 0 {
		t.Errorf("got cancelled %d, denials %v; want cancelled 1 and no denials", tl.cancelled, tl.denials)
	}
	if got := ev.Text(); strings.Contains(got, "DENIED") || !strings.Contains(got, "cancelled") {
		t.Errorf("got the log line %q, want it cancelled, not DENIED", got)
	}
	dec := engine.Event{Kind: engine.EvDecision, Decision: &gate.Decision{Verdict: live.Deny,
		Denial: live.NewDenial(live.ReasonCancelled, "error", "context deadline exceeded")}}
	if got := dec.Text(); strings.Contains(got, "DENY") || !strings.Contains(got, "cancel") {
		t.Errorf("got the decision line %q, want it cancelled, not DENY", got)
	}
	// A real refusal still counts as one.
	tl.add(engine.Event{Kind: engine.EvToolCall, Tool: "place_order", Result: &engine.Result{Status: engine.StatusDenied,
		Decision: live.DecisionDeny, Code: live.ReasonDuplicate}})
	if tl.denials[string(live.ReasonDuplicate)] != 1 {
		t.Errorf("got denials %v, want the refusal counted", tl.denials)
	}
}

// TestPendingReviewIsNotADenial (issue 29 §5): an order left waiting for a human while the
// agent goes on is not counted as refused in the run's summary (its review is counted when
// it is answered).
func TestPendingReviewIsNotADenial(t *testing.T) {
	tl := &tally{reviews: map[string]int{}, denials: map[string]int{}}
	tl.add(engine.Event{Kind: engine.EvToolCall, Tool: "place_order", Result: &engine.Result{Status: engine.StatusDenied,
		Decision: live.DecisionAsk, Code: engine.ReasonReviewPending, ApprovalID: "ap_1"}})
	if tl.calls != 1 || len(tl.denials) != 0 {
		t.Errorf("got calls %d, denials %v; want 1 call and no denial", tl.calls, tl.denials)
	}
}
