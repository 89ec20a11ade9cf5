package paper

import (
	"context"
	"errors"
	"testing"

	"cockpit/live"
	"cockpit/live/livetest"
	"cockpit/live/money"
)

func TestPaperTradesCryptoFractions(t *testing.T) {
	clock := livetest.NewClock(livetest.Epoch)
	b, err := New(Config{Market: MarketConfig{Seed: 7, Symbols: append(DefaultSymbols(), CryptoSymbols()...)}, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	o, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "c1", Symbol: "BTC/USD", Side: live.Buy, Type: live.Market, Quantity: amt("0.0015")})
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != live.StatusFilled || !o.FilledQty.Equal(money.MustParse("0.0015")) {
		t.Fatalf("order = %s filled %s, want filled 0.0015", o.Status, o.FilledQty)
	}
	pos, _ := b.Positions(ctx)
	var got *live.Position
	for i := range pos {
		if pos[i].Symbol == "BTC/USD" {
			got = &pos[i]
		}
	}
	if got == nil || !got.Qty.Equal(money.MustParse("0.0015")) {
		t.Fatalf("position = %+v, want 0.0015 BTC/USD", got)
	}
	// A notional order buys a fraction too.
	o, err = b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "c2", Symbol: "ETH/USD", Side: live.Buy, Type: live.Market, Notional: amt("100")})
	if err != nil || o.FilledQty.Sign() <= 0 || o.FilledQty.IsInteger() {
		t.Fatalf("notional ETH order: %+v, %v; want a fractional fill", o, err)
	}
}

func TestPaperRefusesShapesItDoesNotSimulate(t *testing.T) {
	b := newBroker(t, livetest.NewClock(livetest.Epoch), nil)
	legs := []live.Leg{{Symbol: "AAPL250117C00150000", Side: live.Buy, Ratio: money.FromInt(1)}, {Symbol: "AAPL250117C00160000", Side: live.Sell, Ratio: money.FromInt(1)}}
	for name, req := range map[string]live.OrderRequest{
		"option":         {Symbol: "AAPL250117C00150000", Side: live.Buy, Quantity: amt("1")},
		"option by type": {Symbol: "AAPL", Side: live.Buy, Quantity: amt("1"), Instrument: live.Option},
		"multi-leg":      {Symbol: live.LegsSymbol(legs), Side: live.Buy, Quantity: amt("1"), Legs: legs},
		"replace":        {Symbol: "AAPL", Side: live.Buy, Quantity: amt("1"), Replaces: "P000001"},
	} {
		if _, err := b.PlaceOrder(context.Background(), req); !errors.Is(err, live.ErrRejected) {
			t.Errorf("%s: err = %v, want a rejection", name, err)
		}
	}
}
