package toolbroker

import (
	"context"
	"sync"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// server is a tool-shaped broker whose replies a test changes between calls.
type server struct {
	mu     sync.Mutex
	place  *jsonv.Object
	open   []any
	orders map[string]*jsonv.Object // get_order_by_id
	calls  map[string]int
}

func (s *server) CallTool(_ context.Context, name string, args *jsonv.Object) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.calls == nil {
		s.calls = map[string]int{}
	}
	s.calls[name]++
	switch name {
	case "place_stock_order":
		return s.place, nil
	case "get_orders":
		return append([]any{}, s.open...), nil
	case "get_order_by_id":
		id, _ := args.Value("order_id").(string)
		if o, ok := s.orders[id]; ok {
			return o, nil
		}
		return jsonv.ObjectOf("error", "not found"), nil
	}
	return jsonv.ObjectOf("error", "no tool "+name), nil
}

func (s *server) set(fn func()) { s.mu.Lock(); fn(); s.mu.Unlock() }

func row(id, status, filled, avg string) *jsonv.Object {
	o := jsonv.ObjectOf("id", id, "symbol", "AAPL", "side", "buy", "status", status, "qty", jsonv.Number("5"))
	if filled != "" {
		o.Set("filled_qty", filled)
		o.Set("filled_avg_price", avg)
	}
	return o
}

// subscribed is a broker over s with a subscriber and no poller: the test drives the reads.
func subscribed(t *testing.T, s *server) (*Broker, <-chan live.OrderUpdate) {
	t.Helper()
	b := &Broker{Key: "alpaca-mcp", Profile: live.AlpacaMCP(), Caller: s}
	b.watch.polling = true
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return b, b.Subscribe(ctx)
}

func next(t *testing.T, ch <-chan live.OrderUpdate) (live.OrderUpdate, bool) {
	t.Helper()
	select {
	case u := <-ch:
		return u, true
	default:
		return live.OrderUpdate{}, false
	}
}

func buy(t *testing.T, b *Broker) {
	t.Helper()
	q := money.FromInt(5)
	if _, err := b.PlaceOrder(context.Background(), live.OrderRequest{Symbol: "AAPL", Side: live.Buy, Quantity: &q, ClientOrderID: "c1"}); err != nil {
		t.Fatal(err)
	}
}

func TestFillInThePlaceReply(t *testing.T) {
	s := &server{place: row("o1", "filled", "5", "190.25")}
	b, ch := subscribed(t, s)
	buy(t, b)
	u, ok := next(t, ch)
	if !ok || u.FillQty.String() != "5" || u.FillPx.String() != "190.25" || u.Order.ClientOrderID != "c1" || u.Order.FilledQty.String() != "5" {
		t.Fatalf("update = %+v (%v), want a fill of 5 @ 190.25 for c1", u, ok)
	}
	if _, again := next(t, ch); again {
		t.Errorf("one fill, two updates")
	}
}

// TestFillOfARestingOrder: a partial fill shows in the open orders; the rest shows only in the
// order tool once the order left the list; each becomes one update for its increase.
func TestFillOfARestingOrder(t *testing.T) {
	s := &server{place: row("o1", "new", "", "")}
	b, ch := subscribed(t, s)
	buy(t, b)
	if u, ok := next(t, ch); !ok || u.FillQty.Sign() != 0 || u.Order.Status != live.StatusAccepted {
		t.Fatalf("the placed order: %+v %v, want a status update without a fill", u, ok)
	}
	s.set(func() { s.open = []any{row("o1", "partially_filled", "2", "10")} })
	b.pollOnce(context.Background(), b.openIDs())
	if u, ok := next(t, ch); !ok || u.FillQty.String() != "2" || u.FillPx.String() != "10" {
		t.Fatalf("partial fill: %+v %v, want 2 @ 10", u, ok)
	}
	b.pollOnce(context.Background(), b.openIDs())
	if u, ok := next(t, ch); ok {
		t.Fatalf("the same rows again published %+v", u)
	}
	s.set(func() { s.open, s.orders = nil, map[string]*jsonv.Object{"o1": row("o1", "filled", "5", "10.6")} })
	b.pollOnce(context.Background(), b.openIDs())
	u, ok := next(t, ch)
	if !ok || u.FillQty.String() != "3" || u.FillPx.String() != "11" || u.Order.Status != live.StatusFilled {
		t.Fatalf("the rest: %+v %v, want 3 @ 11 (5 @ 10.6 less 2 @ 10), filled", u, ok)
	}
	if ids := b.openIDs(); len(ids) != 0 {
		t.Errorf("still watching %v", ids)
	}
}

// TestFinishedOrderFirstSeenIsHistory: an orders tool that lists old finished orders does not
// turn them into today's fills.
func TestFinishedOrderFirstSeenIsHistory(t *testing.T) {
	s := &server{open: []any{row("old", "filled", "5", "100")}}
	b, ch := subscribed(t, s)
	if _, err := b.OpenOrders(context.Background()); err != nil {
		t.Fatal(err)
	}
	if u, ok := next(t, ch); ok {
		t.Fatalf("an order first seen filled was published: %+v", u)
	}
}

// TestPollerFindsFills: the subscribed broker polls on its own while an order is open.
func TestPollerFindsFills(t *testing.T) {
	s := &server{place: row("o1", "new", "", "")}
	b := &Broker{Key: "alpaca-mcp", Profile: live.AlpacaMCP(), Caller: s, PollEvery: time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := b.Subscribe(ctx)
	buy(t, b)
	s.set(func() { s.orders = map[string]*jsonv.Object{"o1": row("o1", "filled", "5", "3")} })
	deadline := time.After(30 * time.Second) // a hang, not a speed, fails this test
	for {
		select {
		case u := <-ch:
			if u.FillQty.Sign() > 0 {
				if u.FillQty.String() != "5" || u.FillPx.String() != "3" {
					t.Fatalf("fill = %s @ %s, want 5 @ 3", u.FillQty, u.FillPx)
				}
				return
			}
		case <-deadline:
			t.Fatal("the poller never reported the fill")
		}
	}
}
