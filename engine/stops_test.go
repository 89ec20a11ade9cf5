package engine_test

import (
	"context"
	"testing"

	"cockpit/internal/enginetest"
	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/live/money"
)

// TestPlaceOrderTakesStops is issue 29 item 2's repro: place_order with type stop was refused
// before the gate (invalid_args: argument "type" = "stop": want one of market, limit), so an
// agent could not protect a position. A protective sell stop now reaches the gate and rests at
// the paper broker with its stop price; stop-limit and trailing stops too.
func TestPlaceOrderTakesStops(t *testing.T) {
	f := enginetest.New(t)
	if r := f.Call("place_order", map[string]any{"symbol": "AAPL", "side": "buy", "quantity": "10"}); !r.OK() {
		t.Fatalf("opening buy: %+v", r)
	}
	q, _ := f.Paper.Quote(context.Background(), "AAPL")
	below := q.Bid.Mul(money.MustParse("0.95")).Round(2)
	for _, args := range []map[string]any{
		{"type": "stop", "stop_price": below.String()},
		{"type": "stop_limit", "stop_price": below.String(), "limit_price": below.Sub(money.FromInt(1)).String()},
		{"type": "trailing_stop", "trail_percent": "5"},
		{"type": "trailing_stop", "trail_amount": "3"},
	} {
		args["symbol"], args["side"], args["quantity"] = "AAPL", "sell", "2"
		if r := f.Call("place_order", args); !r.OK() {
			t.Fatalf("%v: %s %s (%s), want the order placed", args["type"], r.Status, r.Code, r.Detail)
		}
	}
	open, _ := f.Paper.OpenOrders(context.Background())
	if len(open) != 4 || open[0].Type != live.Stop || open[0].StopPrice == nil || open[0].StopPrice.Cmp(below) != 0 {
		t.Fatalf("resting orders = %+v, want the four stops (the first at %s)", open, below)
	}
	for _, bad := range []map[string]any{
		{"symbol": "AAPL", "side": "sell", "quantity": "1", "type": "stop"},                                         // no stop price
		{"symbol": "AAPL", "side": "sell", "quantity": "1", "type": "trailing_stop"},                                // no trail
		{"symbol": "AAPL", "side": "sell", "quantity": "1", "type": "stop", "stop_price": "1", "trail_amount": "1"}, // both
	} {
		if r := f.Call("place_order", bad); r.OK() {
			t.Errorf("%v: placed, want it denied", bad)
		}
	}
	if got, want := f.Placed(), 5; got != want {
		t.Errorf("orders at the broker = %d, want %d", got, want)
	}
}

// TestStopsAreValuedAtTheirTrigger: a buy stop above the market is valued at its stop price
// (and a buy trailing stop at the price plus its trail), so one whose trigger value exceeds
// max_order_notional_usd waits for a human even though the same quantity at the market fits.
func TestStopsAreValuedAtTheirTrigger(t *testing.T) {
	f := enginetest.New(t)
	f.Engine.Approver = false
	q, _ := f.Paper.Quote(context.Background(), "AAPL")
	qty := money.FromInt(5000).Div(q.Ask).Mul(money.MustParse("0.98")).FloorToStep(money.FromInt(1)) // just under the 5,000 cap at the ask
	high := q.Ask.Mul(money.MustParse("1.05")).Round(2)                                              // 5 % above: over the cap
	if r := f.Call("place_order", map[string]any{"symbol": "AAPL", "side": "buy", "quantity": qty.String()}); !r.OK() {
		t.Fatalf("market buy of %s: %+v", qty, r)
	}
	r := f.Call("place_order", map[string]any{"symbol": "AAPL", "side": "buy", "quantity": qty.String(), "type": "stop", "stop_price": high.String()})
	if r.OK() || r.Code != live.ReasonNoApprover || r.Limit != live.LimitOrderNotional {
		t.Fatalf("buy stop at %s: %s %s limit %q, want it held at max_order_notional_usd", high, r.Status, r.Code, r.Limit)
	}
	trail := q.Ask.Mul(money.MustParse("0.05")).Round(2)
	r = f.Call("place_order", map[string]any{"symbol": "AAPL", "side": "buy", "quantity": qty.String(), "type": "trailing_stop", "trail_amount": trail.String()})
	if r.OK() || r.Limit != live.LimitOrderNotional {
		t.Fatalf("buy trailing stop (trail %s): %s %s limit %q, want it held at max_order_notional_usd", trail, r.Status, r.Code, r.Limit)
	}
}

// TestProtectiveStopPassesReduceOnly: under REDUCE_ONLY a stop that only closes a held
// position passes as reducing; a stop that would open one is denied.
func TestProtectiveStopPassesReduceOnly(t *testing.T) {
	f := enginetest.New(t)
	if r := f.Call("place_order", map[string]any{"symbol": "AAPL", "side": "buy", "quantity": "10"}); !r.OK() {
		t.Fatalf("opening buy: %+v", r)
	}
	if _, err := halt.Trip(f.Root, live.ReduceOnlySentinel, live.BrokerScope("paper"), "test", "reduce only", f.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	q, _ := f.Paper.Quote(context.Background(), "AAPL")
	stop := q.Bid.Mul(money.MustParse("0.97")).Round(2).String()
	if r := f.Call("place_order", map[string]any{"symbol": "AAPL", "side": "sell", "quantity": "10", "type": "stop", "stop_price": stop}); !r.OK() {
		t.Fatalf("protective stop under REDUCE_ONLY: %s %s (%s)", r.Status, r.Code, r.Detail)
	}
	above := q.Ask.Mul(money.MustParse("1.03")).Round(2).String()
	if r := f.Call("place_order", map[string]any{"symbol": "MSFT", "side": "buy", "quantity": "1", "type": "stop", "stop_price": above}); r.Code != live.ReasonReduceOnly {
		t.Fatalf("opening stop under REDUCE_ONLY: %s %s, want reduce_only", r.Status, r.Code)
	}
}
