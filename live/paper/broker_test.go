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

func amt(s string) *money.Amount { a := money.MustParse(s); return &a }

func newBroker(t *testing.T, clock *livetest.Clock, faults *Faults) *Broker {
	t.Helper()
	b, err := New(Config{Market: MarketConfig{Seed: 7, Symbols: DefaultSymbols()}, Now: clock.Now, Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMarketIsAPureFunctionOfSeedAndTime(t *testing.T) {
	a, _ := NewMarket(MarketConfig{Seed: 42, Symbols: DefaultSymbols()}, livetest.Epoch)
	b, _ := NewMarket(MarketConfig{Seed: 42, Symbols: DefaultSymbols()}, livetest.Epoch)
	c, _ := NewMarket(MarketConfig{Seed: 43, Symbols: DefaultSymbols()}, livetest.Epoch)
	moved, differs := false, false
	first, _ := a.TickAt("NVDA", livetest.Epoch)
	// Query b in reverse order: no history is needed to price a moment.
	for i := 49; i >= 0; i-- {
		at := livetest.Epoch.Add(time.Duration(i) * 1300 * time.Millisecond)
		x, _ := a.TickAt("NVDA", at)
		y, _ := b.TickAt("NVDA", at)
		z, _ := c.TickAt("NVDA", at)
		if !x.Last.Equal(y.Last) || !x.Bid.Equal(y.Bid) {
			t.Fatalf("at %v: %s vs %s", at, x.Last, y.Last)
		}
		moved = moved || !x.Last.Equal(first.Last)
		differs = differs || !x.Last.Equal(z.Last)
	}
	if !moved || !differs {
		t.Fatalf("moved=%v, other seed differs=%v", moved, differs)
	}
	year, _ := a.TickAt("SPY", livetest.Epoch.Add(365*24*time.Hour))
	if year.Last.Sign() <= 0 || year.Bid.GreaterThan(year.Ask) {
		t.Fatalf("a year later: %+v", year)
	}
}

func TestRestoreContinuesTheAccount(t *testing.T) {
	ctx := context.Background()
	clock := livetest.NewClock(livetest.Epoch)
	saved := &wholeStore{st: &State{}}
	b, _ := New(Config{Market: MarketConfig{Seed: 7, Symbols: DefaultSymbols()}, Now: clock.Now, Store: saved})
	b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "x", Symbol: "AAPL", Side: live.Buy, Quantity: amt("3")})
	clock.Advance(time.Hour)
	before, _ := b.Positions(ctx)
	again, err := New(Config{Market: MarketConfig{Symbols: DefaultSymbols()}, Now: clock.Now, State: saved.copy(t)})
	if err != nil {
		t.Fatal(err)
	}
	after, _ := again.Positions(ctx)
	if len(after) != 1 || !after[0].Qty.Equal(before[0].Qty) || !after[0].MarketValue.Equal(before[0].MarketValue) {
		t.Fatalf("restored %+v, before %+v", after, before)
	}
	if o, err := again.OrderByClientID(ctx, "x"); err != nil || o.Status != live.StatusFilled {
		t.Fatalf("client id after restore: %+v %v", o, err)
	}
}

func TestMarketOrderFillsAtTheTouchAndBooksPnL(t *testing.T) {
	ctx := context.Background()
	clock := livetest.NewClock(livetest.Epoch)
	b := newBroker(t, clock, nil)
	q, _ := b.Quote(ctx, "AAPL")
	o, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "c1", Symbol: "AAPL", Side: live.Buy, Type: live.Market, Quantity: amt("10")})
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != live.StatusFilled || !o.AvgFillPrice.Equal(q.Ask) {
		t.Fatalf("order %+v, want filled at the ask %s", o, q.Ask)
	}
	again, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "c1", Symbol: "AAPL", Side: live.Buy, Quantity: amt("10")})
	if err != nil || again.ID != o.ID {
		t.Fatalf("resend returned %+v, %v; want the original order", again, err)
	}
	pos, _ := b.Positions(ctx)
	if len(pos) != 1 || pos[0].Qty.String() != "10" || !pos[0].AvgPrice.Equal(q.Ask) {
		t.Fatalf("positions %+v", pos)
	}
	acct, _ := b.Account(ctx)
	if want := money.FromInt(100000).Sub(q.Ask.Mul(money.FromInt(10))); !acct.Cash.Equal(want) {
		t.Fatalf("cash %s, want %s", acct.Cash, want)
	}
	clock.Advance(time.Hour)
	q2, _ := b.Quote(ctx, "AAPL")
	if _, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "c2", Symbol: "AAPL", Side: live.Sell, Quantity: amt("4")}); err != nil {
		t.Fatal(err)
	}
	pos, _ = b.Positions(ctx)
	wantPnL := q2.Bid.Sub(q.Ask).Mul(money.FromInt(4))
	if pos[0].Qty.String() != "6" || !pos[0].RealizedPnL.Equal(wantPnL) {
		t.Fatalf("after the sell: %+v, want qty 6 and realised %s", pos[0], wantPnL)
	}
}

func TestLimitOrderRestsUntilCrossed(t *testing.T) {
	ctx := context.Background()
	clock := livetest.NewClock(livetest.Epoch)
	b := newBroker(t, clock, nil)
	q, _ := b.Quote(ctx, "TSLA")
	far := q.Bid.Mul(money.MustParse("0.5"))
	o, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "l1", Symbol: "TSLA", Side: live.Buy, Type: live.Limit, Quantity: amt("1"), LimitPrice: &far})
	if err != nil || o.Status != live.StatusAccepted {
		t.Fatalf("limit: %+v %v", o, err)
	}
	open, _ := b.OpenOrders(ctx)
	if len(open) != 1 {
		t.Fatalf("open orders %d, want 1", len(open))
	}
	near := q.Ask.Mul(money.MustParse("1.5"))
	o2, _ := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "l2", Symbol: "TSLA", Side: live.Buy, Type: live.Limit, Quantity: amt("1"), LimitPrice: &near})
	if o2.Status != live.StatusFilled || o2.AvgFillPrice.GreaterThan(near) {
		t.Fatalf("marketable limit %+v", o2)
	}
	if err := b.CancelOrder(ctx, o.ID); err != nil {
		t.Fatal(err)
	}
	if err := b.CancelOrder(ctx, o.ID); !errors.Is(err, live.ErrRejected) {
		t.Fatalf("second cancel: %v, want a rejection", err)
	}
}

func TestReduceOnlyAndBuyingPower(t *testing.T) {
	ctx := context.Background()
	b := newBroker(t, livetest.NewClock(livetest.Epoch), nil)
	if _, err := b.PlaceOrder(ctx, live.OrderRequest{Symbol: "MSFT", Side: live.Sell, Quantity: amt("1"), ReduceOnly: true}); !errors.Is(err, live.ErrRejected) {
		t.Fatalf("reduce-only sell with no position: %v", err)
	}
	if _, err := b.PlaceOrder(ctx, live.OrderRequest{Symbol: "MSFT", Side: live.Buy, Quantity: amt("1000")}); !errors.Is(err, live.ErrRejected) {
		t.Fatalf("buy beyond cash: %v", err)
	}
	if _, err := b.PlaceOrder(ctx, live.OrderRequest{Symbol: "NOPE", Side: live.Buy, Quantity: amt("1")}); !errors.Is(err, live.ErrRejected) {
		t.Fatalf("unknown symbol: %v", err)
	}
}

func TestFaults(t *testing.T) {
	ctx := context.Background()
	faults := &Faults{Plan: func(op string, call int) FaultKind {
		switch call {
		case 1:
			return TimeoutAfter
		case 2:
			return TimeoutBefore
		case 3:
			return ErrorReply
		}
		return NoFault
	}, RejectCancels: map[string]bool{"P000002": true}}
	b := newBroker(t, livetest.NewClock(livetest.Epoch), faults)
	_, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "a", Symbol: "AAPL", Side: live.Buy, Quantity: amt("1")})
	if !errors.Is(err, live.ErrIndeterminate) {
		t.Fatalf("call 1: %v, want indeterminate", err)
	}
	if o, err := b.OrderByClientID(ctx, "a"); err != nil || o.Status != live.StatusFilled {
		t.Fatalf("reply lost but the order exists: %+v %v", o, err)
	}
	_, err = b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "b", Symbol: "AAPL", Side: live.Buy, Quantity: amt("1")})
	if !errors.Is(err, live.ErrIndeterminate) {
		t.Fatalf("call 2: %v", err)
	}
	if _, err := b.OrderByClientID(ctx, "b"); !errors.Is(err, live.ErrOrderNotFound) {
		t.Fatalf("lost before arrival: %v, want not found", err)
	}
	if _, err := b.Positions(ctx); !errors.Is(err, live.ErrTransport) {
		t.Fatalf("call 3 (a read): %v, want a transport error", err)
	}
	far := money.MustParse("1")
	o, _ := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "c", Symbol: "AAPL", Side: live.Buy, Type: live.Limit, Quantity: amt("1"), LimitPrice: &far})
	if err := b.CancelOrder(ctx, o.ID); !errors.Is(err, live.ErrRejected) {
		t.Fatalf("rejected cancel for %s: %v", o.ID, err)
	}
}

func TestReplayBars(t *testing.T) {
	bars, err := SampleBars()
	if err != nil {
		t.Fatal(err)
	}
	if len(bars) != 5 || len(bars["AAPL"]) != 390 {
		t.Fatalf("sample data: %d symbols, %d AAPL bars", len(bars), len(bars["AAPL"]))
	}
	clock := livetest.NewClock(livetest.Epoch)
	b, err := New(Config{Market: MarketConfig{Bars: bars}, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(3 * time.Second)
	q, _ := b.Quote(context.Background(), "SPY")
	if want := bars["SPY"][3].Close; !q.Last.Equal(want) {
		t.Fatalf("replay last %s, want bar 3 close %s", q.Last, want)
	}
}

// TestRealizedCountsClosedPositions (issue 12): a closed round trip's realised P&L stays counted.
func TestRealizedCountsClosedPositions(t *testing.T) {
	b := newBroker(t, livetest.NewClock(livetest.Epoch), nil)
	ctx := context.Background()
	for _, side := range []string{live.Buy, live.Sell} {
		if _, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "rt" + side, Symbol: "AAPL", Side: side, Type: live.Market, Quantity: amt("10")}); err != nil {
			t.Fatal(err)
		}
	}
	want := money.Zero
	for _, p := range b.Snapshot().Positions {
		want = want.Add(p.Realized)
	}
	if got := b.Realized(); got.Sign() == 0 || got.Cmp(want) != 0 {
		t.Errorf("Realized() = %s, want %s (non-zero: the spread paid)", got, want)
	}
}
