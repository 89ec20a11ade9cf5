package toolbroker_test

import (
	"context"
	"errors"
	"testing"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/toolbroker"
)

// recorder answers every tool with reply and records the calls.
type recorder struct {
	reply func(name string) any
	calls []string
	args  []*jsonv.Object
}

func (r *recorder) CallTool(_ context.Context, name string, args *jsonv.Object) (any, error) {
	r.calls = append(r.calls, name)
	r.args = append(r.args, args)
	return r.reply(name), nil
}

func ibkr(t *testing.T) *live.Profile {
	t.Helper()
	p, err := live.Profiles()["ibkr-mcp"].Bind("ibkr", map[string]string{"account": "U123"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDataProfileReads: a data profile's fixed read arguments (bound to the table) are sent,
// its position fields are renamed to cockpit's, and its price paths read the quote.
func TestDataProfileReads(t *testing.T) {
	rec := &recorder{reply: func(name string) any {
		switch name {
		case "get_positions":
			return []any{jsonv.ObjectOf("ticker", "AAPL", "position", jsonv.Number("10"), "mktValue", jsonv.Number("1905"), "conid", jsonv.Number("265598"))}
		case "get_market_data":
			return jsonv.ObjectOf("symbol", "AAPL", "marketData", []any{jsonv.ObjectOf("31", "C190.10", "84", "190.50")})
		}
		return nil
	}}
	tb := &toolbroker.Broker{Key: "ibkr", Profile: ibkr(t), Caller: rec}
	ps, err := tb.Positions(context.Background())
	if err != nil || len(ps) != 1 || ps[0].Symbol != "AAPL" || ps[0].Qty.String() != "10" || ps[0].MarketValue.String() != "1905" {
		t.Fatalf("Positions: got %+v, %v; want AAPL 10 / 1905", ps, err)
	}
	if got := string(jsonv.MustMarshal(rec.args[0], jsonv.Compact)); got != `{"accountId":"U123"}` {
		t.Errorf("get_positions args %s, want the bound account", got)
	}
	q, err := tb.Quote(context.Background(), "AAPL")
	if err != nil || q.Last.String() != "190.5" {
		t.Fatalf("Quote: got %v, %v; want 190.5 (a closing C-prefixed last is not a price)", q.Last, err)
	}
}

// TestDataProfileTextErrors is a regression test: a text reply such as the IBKR server's
// "Error: Failed to place order" used to be recorded as an accepted order with no id; a
// profile's error prefixes make it a rejection, for orders and for reads.
func TestDataProfileTextErrors(t *testing.T) {
	rec := &recorder{reply: func(string) any { return "Error: Failed to place order" }}
	tb := &toolbroker.Broker{Key: "ibkr", Profile: ibkr(t), Caller: rec}
	args := jsonv.ObjectOf("accountId", "U123", "symbol", "AAPL", "action", "BUY", "orderType", "MKT", "quantity", jsonv.Number("1"))
	_, err := tb.PlaceOrder(context.Background(), live.OrderRequest{Tool: "place_order", Args: args})
	var be *live.BrokerError
	if !errors.As(err, &be) || be.Class != live.ErrRejected {
		t.Fatalf("PlaceOrder: got %v, want a rejection", err)
	}
	if _, err := tb.Account(context.Background()); err == nil {
		t.Fatal("Account: an error text read as an account")
	}
}

// TestNoCancelToolRefuses: a profile whose server has no cancel tool refuses a cancel
// without calling anything.
func TestNoCancelToolRefuses(t *testing.T) {
	rec := &recorder{reply: func(string) any { return jsonv.ObjectOf("status", "ok") }}
	tb := &toolbroker.Broker{Key: "ibkr", Profile: ibkr(t), Caller: rec}
	if err := tb.CancelOrder(context.Background(), "1"); err == nil || len(rec.calls) != 0 {
		t.Fatalf("CancelOrder: got %v after %v, want a refusal and no call", err, rec.calls)
	}
}
