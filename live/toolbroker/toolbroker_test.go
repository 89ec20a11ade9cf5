package toolbroker_test

import (
	"context"
	"errors"
	"testing"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/money"
	"cockpit/live/toolbroker"
)

type replies map[string]any

func (r replies) CallTool(_ context.Context, name string, args *jsonv.Object) (any, error) {
	if f, ok := r[name].(func(*jsonv.Object) any); ok {
		return f(args), nil
	}
	return r[name], nil
}

// TestPositionsCarryQuantities is a regression test: Positions used to return only market
// values, so flatten saw every position as zero and closed nothing.
func TestPositionsCarryQuantities(t *testing.T) {
	tb := &toolbroker.Broker{Key: "robinhood", Profile: live.Robinhood(), Caller: replies{
		"get_equity_positions": jsonv.ObjectOf("positions", []any{
			jsonv.ObjectOf("symbol", "AAPL", "quantity", "2", "market_value", "400"),
			jsonv.ObjectOf("symbol", "TSLA", "quantity", "-1", "market_value", "-250"),
		})}}
	ps, err := tb.Positions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range ps {
		got[p.Symbol] = p.Qty.String() + "/" + p.MarketValue.String()
	}
	if got["AAPL"] != "2/400" || got["TSLA"] != "-1/-250" {
		t.Fatalf("Positions: got %v, want AAPL 2/400 and TSLA -1/-250", got)
	}
}

// TestTypedOrdersAreBuiltByTheProfile: a typed order (cockpit's place_order, a flatten close)
// reaches the profile's place tool with arguments built from the request.
func TestTypedOrdersAreBuiltByTheProfile(t *testing.T) {
	var sent *jsonv.Object
	for _, tt := range []struct {
		p    *live.Profile
		tool string
		want string
	}{
		{live.Robinhood(), "place_equity_order", `{"symbol":"AAPL","side":"sell","instrument_type":"equity","quantity":"3","order_type":"market"}`},
		{live.AlpacaMCP(), "place_stock_order", `{"symbol":"AAPL","side":"sell","qty":"3","type":"market","time_in_force":"day","client_order_id":"c-9"}`},
	} {
		tb := &toolbroker.Broker{Key: "k", Profile: tt.p, Caller: replies{tt.tool: func(a *jsonv.Object) any {
			sent = a
			return jsonv.ObjectOf("id", "o-1", "status", "accepted")
		}}}
		q := money.FromInt(3)
		o, err := tb.PlaceOrder(context.Background(), live.OrderRequest{Symbol: "AAPL", Side: live.Sell, Quantity: &q, ClientOrderID: "c-9"})
		if err != nil || o.ID != "o-1" {
			t.Fatalf("%s: PlaceOrder got %+v, %v", tt.p.Name, o, err)
		}
		if got := string(jsonv.MustMarshal(sent, jsonv.Compact)); got != tt.want {
			t.Errorf("%s: sent %s, want %s", tt.p.Name, got, tt.want)
		}
	}
}

// TestAlpacaErrorReplies: the Alpaca server's {"error": …} reply is a rejection, and one
// marked timeout is indeterminate (never counted, reconciled instead).
func TestAlpacaErrorReplies(t *testing.T) {
	for _, tt := range []struct {
		reply *jsonv.Object
		want  error
	}{
		{jsonv.ObjectOf("error", jsonv.ObjectOf("message", "insufficient buying power", "http_status", jsonv.Number("403"))), live.ErrRejected},
		{jsonv.ObjectOf("error", jsonv.ObjectOf("message", "timed out", "timeout", true)), live.ErrIndeterminate},
		{jsonv.ObjectOf("error", "bad symbol"), live.ErrRejected},
	} {
		tb := &toolbroker.Broker{Key: "k", Profile: live.AlpacaMCP(), Caller: replies{"place_stock_order": tt.reply}}
		_, err := tb.PlaceOrder(context.Background(), live.OrderRequest{Tool: "place_stock_order", Args: jsonv.ObjectOf("symbol", "AAPL")})
		if err == nil || !isClass(err, tt.want) {
			t.Errorf("reply %s: got %v, want %v", jsonv.MustMarshal(tt.reply, jsonv.Compact), err, tt.want)
		}
	}
}

func isClass(err, class error) bool { return errors.Is(err, class) }

// TestOpenOrdersCarrySizes is a regression test: open orders came back without side, type or
// size, so the gate could not count a resting order's exposure and denied every next order
// ("open order …: no quantity or notional").
func TestOpenOrdersCarrySizes(t *testing.T) {
	tb := &toolbroker.Broker{Key: "alp", Profile: live.AlpacaMCP(), Caller: replies{
		"get_orders": []any{jsonv.ObjectOf("id", "o-1", "symbol", "AAPL", "side", "buy", "type", "limit", "qty", "3",
			"limit_price", "190.5", "filled_qty", "1", "status", "accepted")}}}
	os, err := tb.OpenOrders(context.Background())
	if err != nil || len(os) != 1 {
		t.Fatalf("OpenOrders: got %+v, %v", os, err)
	}
	o := os[0]
	if o.Side != live.Buy || o.Type != live.Limit || o.Quantity == nil || o.Quantity.String() != "3" ||
		o.LimitPrice == nil || o.LimitPrice.String() != "190.5" || o.FilledQty.String() != "1" {
		t.Fatalf("order: got side %q type %q qty %v limit %v filled %s", o.Side, o.Type, o.Quantity, o.LimitPrice, o.FilledQty)
	}
}
