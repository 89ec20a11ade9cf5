package engine

import (
	"strings"
	"testing"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// owned is issue 27's repro text: a window title, a screen clear, a cursor move, a line erase.
const owned = "\x1b]0;OWNED\a\x1b[2J\x1b[1A\x1b[2K"

// TestEventTextEscapesOutsideText is issue 27 item 4 for the headless console: an agent's
// symbol, order id, reason or message, a broker's error and an OSC 52 clipboard write reach
// the line as visible escapes, never as bytes a terminal acts on.
func TestEventTextEscapesOutsideText(t *testing.T) {
	n := money.MustParse("100")
	evil := live.OrderIntent{Symbol: owned, Side: "buy", NotionalUSD: &n, InstrumentType: live.Equity}
	osc52 := "\x1b]52;c;SGVsbG8=\a"
	order := live.Order{ID: owned, Symbol: osc52, Side: "buy", Status: live.StatusAccepted}
	tests := []struct {
		name string
		ev   Event
	}{
		{"denied symbol", Event{Kind: EvDecision, Decision: &gate.Decision{Verdict: live.Deny, Intent: &evil,
			Denial: live.NewDenial(live.ReasonNoQuote, "symbol", owned)}}},
		{"allowed order id", Event{Kind: EvDecision, Decision: &gate.Decision{Verdict: live.Allow, Outcome: live.OutcomeAccepted,
			Intent: &evil, Order: &order}}},
		{"tool detail", Event{Kind: EvToolCall, Tool: "cancel_order", Result: &Result{Status: StatusError, Code: "broker_rejected",
			Detail: "unknown order " + owned}}},
		{"tool name", Event{Kind: EvToolCall, Tool: "x" + osc52}},
		{"order update", Event{Kind: EvOrderUpdate, Order: &live.OrderUpdate{Order: order}}},
		{"fill", Event{Kind: EvOrderUpdate, Order: &live.OrderUpdate{Order: order, FillQty: money.FromInt(1), FillPx: n}}},
		{"review", Event{Kind: EvReviewCreated, Review: &live.ReviewItem{ID: "r1", Detail: owned,
			Order: jsonv.ObjectOf("side", "buy", "notional", jsonv.Number("100"), "symbol", osc52)}}},
		{"review resolved", Event{Kind: EvReviewResolved, Review: &live.ReviewItem{ID: "r1", State: live.ReviewDenied,
			ResolvedBy: "ssh:" + owned, Resolution: osc52}}},
		{"flatten step", Event{Kind: EvFlatten, Flatten: &gate.FlattenProgress{Phase: "cancel", Item: owned, Err: osc52}}},
		{"turn ended", Event{Kind: EvTurnEnded, Turn: 1, Message: owned}},
		{"llm", Event{Kind: EvLLM, Message: osc52}},
		{"error", Event{Kind: EvError, Message: owned}},
		{"other", Event{Kind: "x" + EventKind(owned), Message: osc52}},
	}
	for _, tt := range tests {
		got := tt.ev.Text()
		if i := strings.IndexFunc(got, func(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 }); i >= 0 {
			t.Errorf("%s: Text() = %q: a control character at byte %d", tt.name, got, i)
		}
		if !strings.Contains(got, `\x1b]`) {
			t.Errorf("%s: Text() = %q, want the escape shown as \\x1b]", tt.name, got)
		}
	}
}
