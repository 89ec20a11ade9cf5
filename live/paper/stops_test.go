package paper

import (
	"context"
	"errors"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/livetest"
	"cockpit/live/money"
)

// replayBroker trades one symbol X whose last price is the given closes, one per second.
func replayBroker(t *testing.T, clock *livetest.Clock, closes ...string) *Broker {
	t.Helper()
	return storedReplayBroker(t, clock, nil, closes...)
}

// storedReplayBroker is replayBroker saving its account to store (nil: none).
func storedReplayBroker(t *testing.T, clock *livetest.Clock, store Store, closes ...string) *Broker {
	t.Helper()
	bars := make([]Bar, len(closes))
	for i, c := range closes {
		px := money.MustParse(c)
		bars[i] = Bar{Time: livetest.Epoch.Add(time.Duration(i) * time.Second), Open: px, High: px, Low: px, Close: px}
	}
	b, err := New(Config{Market: MarketConfig{Bars: map[string][]Bar{"X": bars}, Step: time.Second, TimeScale: 1},
		Now: clock.Now, Cash: money.FromInt(1_000_000), Store: store})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// stepTo advances the clock one market step at a time through n steps, reading the book (a
// broker call matches resting orders) at each.
func stepTo(t *testing.T, b *Broker, clock *livetest.Clock, n int) []live.Order {
	t.Helper()
	var open []live.Order
	for range n {
		clock.Advance(time.Second)
		open, _ = b.OpenOrders(context.Background())
	}
	return open
}

func TestPaperStopOrders(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name      string
		closes    []string
		side      string
		req       live.OrderRequest
		fillStep  int    // the step the order fills on (0: never within the bars)
		fillPrice string // the touch at that step
	}{
		{"sell stop fills once the last trade reaches it", []string{"100", "99", "98", "96.5", "95"}, live.Sell,
			live.OrderRequest{Type: live.Stop, StopPrice: amt("97")}, 3, "96.48"},
		{"buy stop fills once the last trade reaches it", []string{"100", "101", "104", "105"}, live.Buy,
			live.OrderRequest{Type: live.Stop, StopPrice: amt("103")}, 2, "104.03"},
		{"triggered stop-limit rests as a limit until its price", []string{"100", "96", "96.4", "96.6", "96"}, live.Sell,
			live.OrderRequest{Type: live.StopLimit, StopPrice: amt("97"), LimitPrice: amt("96.5")}, 3, "96.58"},
		{"sell trailing stop follows the high", []string{"100", "105", "104", "103.5", "102.9"}, live.Sell,
			live.OrderRequest{Type: live.TrailingStop, TrailAmount: amt("2")}, 4, "102.87"},
		{"buy trailing stop (percent) follows the low", []string{"100", "90", "95", "99.5", "99"}, live.Buy,
			live.OrderRequest{Type: live.TrailingStop, TrailPercent: amt("10")}, 3, "99.52"},
		{"a stop not reached never fills", []string{"100", "99", "98"}, live.Sell,
			live.OrderRequest{Type: live.Stop, StopPrice: amt("90")}, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clock := livetest.NewClock(livetest.Epoch)
			b := replayBroker(t, clock, c.closes...)
			if c.side == live.Sell { // something to protect
				if _, err := b.PlaceOrder(ctx, live.OrderRequest{Symbol: "X", Side: live.Buy, Type: live.Market, Quantity: amt("10")}); err != nil {
					t.Fatal(err)
				}
			}
			req := c.req
			req.ClientOrderID, req.Symbol, req.Side, req.Quantity = "stop", "X", c.side, amt("10")
			o, err := b.PlaceOrder(ctx, req)
			if err != nil || o.Status != live.StatusAccepted {
				t.Fatalf("placed: %+v %v, want a resting order", o, err)
			}
			for step := 1; step < len(c.closes); step++ {
				open := stepTo(t, b, clock, 1)
				got, _ := b.OrderByClientID(ctx, "stop")
				filled := got.Status == live.StatusFilled
				if want := step == c.fillStep; filled != want {
					t.Fatalf("step %d (last %s): status %s, open %d, stop %v; want filled=%v", step, c.closes[step], got.Status, len(open), got.StopPrice, want)
				}
				if filled {
					if got.AvgFillPrice.String() != c.fillPrice {
						t.Fatalf("filled at %s, want the touch %s", got.AvgFillPrice, c.fillPrice)
					}
					return
				}
			}
			if c.fillStep > 0 {
				t.Fatal("never filled")
			}
		})
	}
}

// TestPaperTrailingStopSurvivesARestart: the trailing stop's reference and its stop, and
// whether a stop-limit triggered, are saved through the Store when the price moves them (no
// fill, no other change), so an account restored from the Store keeps them.
func TestPaperTrailingStopSurvivesARestart(t *testing.T) {
	ctx := context.Background()
	clock := livetest.NewClock(livetest.Epoch)
	saved := &wholeStore{st: &State{}}
	b := storedReplayBroker(t, clock, saved, "100", "110", "108", "107")
	b.PlaceOrder(ctx, live.OrderRequest{Symbol: "X", Side: live.Buy, Type: live.Market, Quantity: amt("1")})
	if _, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "t", Symbol: "X", Side: live.Sell, Type: live.TrailingStop, Quantity: amt("1"), TrailAmount: amt("5")}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "sl", Symbol: "X", Side: live.Buy, Type: live.StopLimit, Quantity: amt("1"),
		StopPrice: amt("105"), LimitPrice: amt("100")}); err != nil {
		t.Fatal(err)
	}
	stepTo(t, b, clock, 1) // 110: the stop follows to 105; the buy stop-limit triggers and rests at 100
	again, err := New(Config{Market: MarketConfig{Bars: b.mkt.cfg.Bars, Step: time.Second, TimeScale: 1}, Now: clock.Now,
		State: saved.copy(t), Store: saved})
	if err != nil {
		t.Fatal(err)
	}
	o, _ := again.OrderByClientID(ctx, "t")
	if o.TrailRef == nil || o.TrailRef.String() != "110" || o.StopPrice == nil || o.StopPrice.String() != "105" {
		t.Fatalf("restored trailing stop: ref %v stop %v, want 110 and 105", o.TrailRef, o.StopPrice)
	}
	if o, _ := again.OrderByClientID(ctx, "sl"); !o.Triggered || o.Status != live.StatusAccepted {
		t.Fatalf("restored stop-limit: triggered %v status %s, want triggered and resting", o.Triggered, o.Status)
	}
}

// TestPaperRefusesStopsWithoutTheirPrices: a stop needs a stop price, a trailing stop exactly
// one trail; the paper broker rejects anything else like a broker would.
func TestPaperRefusesStopsWithoutTheirPrices(t *testing.T) {
	ctx := context.Background()
	b := replayBroker(t, livetest.NewClock(livetest.Epoch), "100")
	for _, req := range []live.OrderRequest{
		{Type: live.Stop},
		{Type: live.StopLimit, StopPrice: amt("99")},
		{Type: live.TrailingStop},
		{Type: live.TrailingStop, TrailAmount: amt("1"), TrailPercent: amt("1")},
		{Type: live.TrailingStop, TrailPercent: amt("100")},
	} {
		req.Symbol, req.Side, req.Quantity = "X", live.Buy, amt("1")
		if _, err := b.PlaceOrder(ctx, req); !errors.Is(err, live.ErrRejected) {
			t.Errorf("%s %+v: err %v, want rejected", req.Type, req.Prices(), err)
		}
	}
}
