package alpaca

import (
	"context"
	"errors"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/money"
)

// TestPlaceStopOrders: stop, stop-limit and trailing-stop orders reach Alpaca with their own
// type and prices (stop_price, trail_price, trail_percent; gtc, as a protective stop outlives
// the day), and Alpaca's order comes back with them; a stop without its price, a notional stop
// and a crypto stop that Alpaca would refuse never leave.
func TestPlaceStopOrders(t *testing.T) {
	f, b := pair(t, 5*time.Second)
	ctx := context.Background()
	f.Hold(true)
	cases := []struct {
		req  live.OrderRequest
		typ  live.OrderType
		stop string
	}{
		{live.OrderRequest{ClientOrderID: "s", Type: live.Stop, StopPrice: amt("150")}, live.Stop, "150"},
		{live.OrderRequest{ClientOrderID: "sl", Type: live.StopLimit, StopPrice: amt("150"), LimitPrice: amt("149.5")}, live.StopLimit, "150"},
		{live.OrderRequest{ClientOrderID: "ta", Type: live.TrailingStop, TrailAmount: amt("2.5")}, live.TrailingStop, ""},
		{live.OrderRequest{ClientOrderID: "tp", Type: live.TrailingStop, TrailPercent: amt("3")}, live.TrailingStop, ""},
	}
	for _, c := range cases {
		req := c.req
		req.Symbol, req.Side, req.Quantity = "AAPL", live.Sell, amt("2")
		o, err := b.PlaceOrder(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", c.typ, err)
		}
		if o.Type != c.typ || (c.stop != "" && (o.StopPrice == nil || o.StopPrice.String() != c.stop)) {
			t.Fatalf("%s: order = %+v, want type %s stop %s", c.typ, o, c.typ, c.stop)
		}
		sent, _ := f.OrderByClientID(req.ClientOrderID)
		if sent.Type != string(c.typ) || !same(sent.TrailPrice, req.TrailAmount) || !same(sent.TrailPercent, req.TrailPercent) {
			t.Fatalf("%s: Alpaca got %+v", c.typ, sent)
		}
	}
	before := f.Count("POST", "/v2/orders")
	for _, r := range []live.OrderRequest{
		{ClientOrderID: "b1", Symbol: "AAPL", Side: live.Sell, Type: live.Stop, Quantity: amt("1")},                                                        // no stop price
		{ClientOrderID: "b2", Symbol: "AAPL", Side: live.Sell, Type: live.Stop, Notional: amt("100"), StopPrice: amt("1")},                                 // notional
		{ClientOrderID: "b3", Symbol: "AAPL", Side: live.Sell, Type: live.TrailingStop, Quantity: amt("1"), TrailAmount: amt("1"), TrailPercent: amt("1")}, // two trails
		{ClientOrderID: "b4", Symbol: "BTC/USD", Instrument: live.Crypto, Side: live.Sell, Type: live.Stop, Quantity: amt("1"), StopPrice: amt("1")},       // crypto stop
	} {
		if _, err := b.PlaceOrder(ctx, r); !errors.Is(err, live.ErrRejected) {
			t.Errorf("%s: got %v, want rejected before Alpaca", r.ClientOrderID, err)
		}
	}
	if got := f.Count("POST", "/v2/orders"); got != before {
		t.Fatalf("refused stops reached Alpaca: %d POSTs, want %d", got, before)
	}
}

func same(a, b *money.Amount) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}
