package readmodel

import (
	"testing"

	"cockpit/store"
)

// TestAlertsOf: which audit events raise which alerts.
func TestAlertsOf(t *testing.T) {
	cases := []struct {
		name string
		e    store.Event
		want string // kind, "" for none
	}{
		{"denied breach", store.Event{Type: "breach", Outcome: "blocked", Reason: "exclude_symbols",
			Payload: `{"decision":{"decision":"deny"},"error":"GME is on the mandate exclude list"}`}, "DENIED"},
		{"breach waiting for a review", store.Event{Type: "breach", Outcome: "blocked", Reason: "max_order_notional_usd",
			Payload: `{"decision":{"decision":"pause_for_reauth"}}`}, ""},
		{"gate denial", store.Event{Type: "order_rejected", Outcome: "blocked", Reason: "halted", Payload: `{"error":"halted"}`}, "DENIED"},
		{"broker rejection", store.Event{Type: "order_rejected", Outcome: "rejected", Payload: `{"error":"insufficient buying power"}`}, "REJECT"},
		{"cancelled call", store.Event{Type: "tool_call", Outcome: "blocked", Reason: "cancelled", Payload: `{"error":"context canceled"}`}, "CANCELLED"},
		{"halt", store.Event{Type: "halt_tripped", Outcome: "accepted", Summary: "HALT (global)"}, "HALT"},
		{"review", store.Event{Type: "approval_requested", ApprovalID: "ap_1", Summary: "buy $6000 AAPL"}, "REVIEW"},
		{"finding", store.Event{Type: "tool_call", Outcome: "accepted", Tool: "get_news",
			Payload: `{"detail":{"security_warnings":[{"rule_id":"r","severity":"high","match":"ignore"}]}}`}, "INJECTION"},
		{"a plain read", store.Event{Type: "tool_call", Outcome: "accepted", Tool: "get_quote", Payload: `{}`}, ""},
		{"a verified flatten", store.Event{Type: "flatten", Outcome: "accepted", Summary: "FLAT"}, "FLATTEN"},
	}
	for _, tc := range cases {
		got := alertsOf(tc.e)
		kind := ""
		if len(got) > 0 {
			kind = got[0].Kind
		}
		if kind != tc.want {
			t.Errorf("%s: alert %q, want %q (%+v)", tc.name, kind, tc.want, got)
		}
	}
}
