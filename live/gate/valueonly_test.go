package gate_test

import (
	"context"
	"strings"
	"testing"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/jsonv"
	"cockpit/live/toolbroker"
)

// valueOnly is a tool-shaped broker whose positions tool answers one row with a market value
// and no quantity (the reference values such a row by market_value, E22).
func valueOnly(f *fixture) (*toolbroker.Broker, *replyCaller) {
	caller := &replyCaller{replies: map[string]any{
		"get_equity_positions": jsonv.ObjectOf("positions", []any{jsonv.ObjectOf("symbol", "MSFT", "market_value", jsonv.Number("99950"))}),
		"get_portfolio":        jsonv.ObjectOf("equity", jsonv.Number("100000")),
		"get_equity_orders":    []any{},
		"place_equity_order":   jsonv.ObjectOf("status", "ok", "order_id", "rh_1"),
	}}
	return &toolbroker.Broker{Key: "paper", Profile: live.Robinhood(), Caller: caller, Now: f.clock.Now}, caller
}

// TestValueOnlyPositionCountsAsExposure is issue 28 §2's third repro: a position row with a
// market value and no quantity made the gate DENY "positions unreadable"; the reference values
// exposure from the market value and asks for review. 99,950 held + a 100 buy > 100,000.
func TestValueOnlyPositionCountsAsExposure(t *testing.T) {
	f := newFixture(t, "")
	tb, caller := valueOnly(f)
	args := jsonv.ObjectOf("symbol", "AAPL", "side", "buy", "instrument_type", "stock", "notional_usd", jsonv.Number("100"))
	d := f.gate.Submit(context.Background(), gate.Submission{Broker: tb, Profile: live.Robinhood(), Tool: "place_equity_order", Args: args})
	if d.Verdict != live.PauseForReauth || d.Breach == nil || d.Breach.Limit != live.LimitTotalExposure || d.Breach.Attempted.String() != "100050" {
		t.Fatalf("decision %s %s %v, want PAUSE_FOR_REAUTH max_total_exposure_usd 100050 > 100000", d.Verdict, d.Reason, d.Breach)
	}
	for _, c := range caller.calls {
		if c == "place_equity_order" {
			t.Fatal("the order was sent")
		}
	}
}

// TestValueOnlyPositionIsNotFlat: only flatten needs the quantity. It sends no close for such
// a row and reports NOT FLAT naming it; the operator's reduce-only close of it is refused.
func TestValueOnlyPositionIsNotFlat(t *testing.T) {
	f := newFixture(t, "")
	tb, caller := valueOnly(f)
	rep := f.gate.Flatten(context.Background(), tb, "paper", gate.FlattenOptions{ClosePositions: true, Actor: live.Operator("op", "s1"), Why: "test"})
	if rep.Flat() || !strings.HasPrefix(rep.Summary(), "NOT FLAT") || !strings.Contains(rep.Summary(), "MSFT value +99950, quantity unknown") {
		t.Errorf("flatten: %q, want NOT FLAT naming MSFT's value and unknown quantity", rep.Summary())
	}
	if len(rep.Errors) != 1 || rep.Errors[0].Phase != gate.PhaseClose || rep.Errors[0].Item != "MSFT" {
		t.Errorf("flatten errors %+v, want one close error for MSFT", rep.Errors)
	}
	d := f.gate.SubmitReducing(context.Background(), gate.ReduceRequest{Broker: tb, BrokerKey: "paper", Symbol: "MSFT", Side: live.Sell,
		Quantity: *amt("1"), Actor: live.Operator("op", "s1"), Why: "test"})
	if d.Verdict != live.Deny || d.Reason != live.ReasonNotReducing {
		t.Errorf("reduce-only close of a position of unknown size: %s %s, want DENY %s", d.Verdict, d.Reason, live.ReasonNotReducing)
	}
	for _, c := range caller.calls {
		if c == "place_equity_order" {
			t.Fatal("a close was sent for a position of unknown size")
		}
	}
}
