package paper

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/livetest"
	"cockpit/live/money"
)

// TestSettledOrdersLeaveMemory (issue 32): the broker keeps in memory the orders still open;
// a filled or cancelled one leaves it, so matching, open orders and saving cost what the
// open book costs, not the account's history. A settled order is still found by client order
// id (a resend returns it and places nothing), and cancelling it says what it is.
func TestSettledOrdersLeaveMemory(t *testing.T) {
	ctx := context.Background()
	b := newBroker(t, livetest.NewClock(livetest.Epoch), nil)
	for i := range 200 {
		side := []string{live.Buy, live.Sell}[i%2]
		if _, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: fmt.Sprintf("m%d", i), Symbol: "AAPL", Side: side, Quantity: amt("1")}); err != nil {
			t.Fatal(err)
		}
	}
	for _, cid := range []string{"rest1", "rest2"} {
		if _, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: cid, Symbol: "MSFT", Side: live.Buy, Type: live.Limit, Quantity: amt("1"), LimitPrice: amt("1")}); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(b.Snapshot().Orders); got != 2 {
		t.Errorf("orders in memory after 200 fills and 2 resting orders: %d, want 2", got)
	}
	first, err := b.OrderByClientID(ctx, "m0")
	if err != nil || first.Status != live.StatusFilled {
		t.Fatalf("a settled order by client id: %+v %v, want filled", first, err)
	}
	again, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "m0", Symbol: "AAPL", Side: live.Buy, Quantity: amt("1")})
	if err != nil || again.ID != first.ID {
		t.Errorf("resend of a settled order: %+v %v, want %s back", again, err, first.ID)
	}
	if byID, err := b.OrderByID(ctx, first.ID); err != nil || byID.ClientOrderID != "m0" {
		t.Errorf("a settled order by id: %+v %v, want m0", byID, err)
	}
	if _, err := b.OrderByID(ctx, "P999999"); !errors.Is(err, live.ErrOrderNotFound) {
		t.Errorf("an unknown id: %v, want not found", err)
	}
	if err := b.CancelOrder(ctx, first.ID); err == nil || !strings.Contains(err.Error(), "is filled") {
		t.Errorf("cancel of a filled order: %v, want it said filled", err)
	}
	if open, _ := b.OpenOrders(ctx); len(open) != 2 {
		t.Errorf("open orders: %d, want 2", len(open))
	}
}

// TestChangeCarriesOnlyWhatItTouched (issue 32): with a Store, a change carries the header
// and the orders and positions it touched; the 300th order's change is no larger than the
// first's, and the header holds no order.
func TestChangeCarriesOnlyWhatItTouched(t *testing.T) {
	ctx := context.Background()
	store := &wholeStore{st: &State{}}
	b := savingBroker(t, livetest.NewClock(livetest.Epoch), store)
	size := func(c Change) int {
		n := len(c.Header)
		for _, o := range c.Orders {
			n += len(o.Data)
		}
		for _, p := range c.Positions {
			n += len(p.Data)
		}
		return n
	}
	var sizes []int
	for i := range 300 {
		side := []string{live.Buy, live.Sell}[i%2]
		before := len(store.changes)
		if _, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: fmt.Sprintf("c%d", i), Symbol: "AAPL", Side: side, Quantity: amt("1")}); err != nil {
			t.Fatal(err)
		}
		c := store.changes[len(store.changes)-1]
		if len(store.changes) != before+1 || len(c.Orders) != 1 || len(c.Positions) != 1 {
			t.Fatalf("order %d: %d changes with %d orders and %d positions, want one change of one order and one position", i, len(store.changes)-before, len(c.Orders), len(c.Positions))
		}
		if bytes.Contains(c.Header, []byte(`"orders"`)) || bytes.Contains(c.Header, []byte(`"positions"`)) {
			t.Fatalf("order %d: the header carries orders or positions: %s", i, c.Header)
		}
		sizes = append(sizes, size(c))
	}
	if last, first := sizes[len(sizes)-1], sizes[0]; last > first+64 {
		t.Errorf("the 300th order's change is %d bytes, the first's %d: it grows with the history", last, first)
	}
	if got := len(store.st.Orders); got != 300 {
		t.Errorf("the store holds %d orders, want all 300", got)
	}
}

// TestSavedAccountMatchesTheBroker: orders, cancels, resting orders the market fills, day
// marks and refused saves in random order; after each call the account the store would
// restore (header, open orders, positions) is the broker's own, and a call made while saving
// fails changes nothing at all.
func TestSavedAccountMatchesTheBroker(t *testing.T) {
	ctx := context.Background()
	clock := livetest.NewClock(livetest.Epoch)
	var full atomic.Bool
	store := &wholeStore{st: &State{}, full: &full}
	b := savingBroker(t, clock, store)
	rng := rand.New(rand.NewPCG(32, 1))
	syms := []string{"AAPL", "MSFT", "TSLA"}
	for i := range 600 {
		full.Store(rng.IntN(5) == 0)
		before := snapshotJSON(t, b)
		sym := syms[rng.IntN(len(syms))]
		q, _ := b.mkt.TickAt(sym, clock.Now())
		switch op := rng.IntN(6); op {
		case 0, 1:
			side := []string{live.Buy, live.Sell}[rng.IntN(2)]
			b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: fmt.Sprintf("m%d", i), Symbol: sym, Side: side, Quantity: amt("1")})
		case 2:
			px := q.Bid.Mul(money.MustParse("0.999")).Round(2)
			b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: fmt.Sprintf("r%d", i), Symbol: sym, Side: live.Buy, Type: live.Limit, Quantity: amt("1"), LimitPrice: &px})
		case 3:
			if open, err := b.OpenOrders(ctx); err == nil && len(open) > 0 {
				b.CancelOrder(ctx, open[rng.IntN(len(open))].ID)
			}
		case 4:
			clock.Advance(time.Duration(1+rng.IntN(300)) * time.Second)
			b.Advance()
		case 5:
			clock.Advance(time.Duration(rng.IntN(3)) * 12 * time.Hour)
			b.DayStart(clock.Now(), money.FromInt(int64(rng.IntN(1000))))
		}
		if full.Load() {
			if after := snapshotJSON(t, b); after != before {
				t.Fatalf("call %d on a full disk changed the account:\nbefore %s\nafter  %s", i, before, after)
			}
			continue
		}
		if got, want := restoredJSON(t, store), snapshotJSON(t, b); got != want {
			t.Fatalf("call %d: the store would restore\n%s\nthe broker holds\n%s", i, got, want)
		}
	}
}

// snapshotJSON is the broker's account in memory, without the client id index.
func snapshotJSON(t *testing.T, b *Broker) string {
	t.Helper()
	st := b.Snapshot()
	st.ByClient = nil
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// restoredJSON is what Restore builds from the store's header, open orders and positions.
func restoredJSON(t *testing.T, s *wholeStore) string {
	t.Helper()
	head, err := s.st.header()
	if err != nil {
		t.Fatal(err)
	}
	var orders [][]byte
	for _, o := range s.st.Orders {
		if o.Status.Open() {
			data, _ := json.Marshal(o)
			orders = append(orders, data)
		}
	}
	pos := map[string][]byte{}
	for sym, p := range s.st.Positions {
		pos[sym], _ = json.Marshal(p)
	}
	st, err := Restore(head, orders, pos)
	if err != nil {
		t.Fatal(err)
	}
	st.ByClient = nil
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestRestoreNamesWhatIsUnreadable: a header that is a whole account, or an order or a
// position that does not decode, is an error that says which.
func TestRestoreNamesWhatIsUnreadable(t *testing.T) {
	cases := []struct {
		name      string
		header    string
		orders    []string
		positions map[string]string
		want      string
	}{
		{"header", `{"cash":`, nil, nil, "header"},
		{"whole account", `{"cash":"1","orders":{"P000001":{"ID":"P000001","Status":"filled"}}}`, nil, nil, "not a header"},
		{"order", `{"cash":"1"}`, []string{`{"ID":"P1","Quantity":"x"}`}, nil, "open order 1"},
		{"position", `{"cash":"1"}`, nil, map[string]string{"AAPL": `{"qty":true}`}, "AAPL position"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var orders [][]byte
			for _, o := range c.orders {
				orders = append(orders, []byte(o))
			}
			pos := map[string][]byte{}
			for k, v := range c.positions {
				pos[k] = []byte(v)
			}
			_, err := Restore([]byte(c.header), orders, pos)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error naming %q", err, c.want)
			}
		})
	}
}

// TestStoreReadFailureRefusesTheOrder: when the store cannot say whether a client order id is
// taken, the order is rejected (neither a resend nor a new order), and the lookup says why.
func TestStoreReadFailureRefusesTheOrder(t *testing.T) {
	ctx := context.Background()
	b, err := New(Config{Market: MarketConfig{Seed: 7, Symbols: DefaultSymbols()}, Now: livetest.NewClock(livetest.Epoch).Now, Store: brokenReads{}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "c1", Symbol: "AAPL", Side: live.Buy, Quantity: amt("1")})
	if !errors.Is(err, live.ErrRejected) || !strings.Contains(err.Error(), "could not be read") {
		t.Errorf("order while the store cannot be read: %v, want rejected, saying the account could not be read", err)
	}
	if _, err := b.OrderByClientID(ctx, "c1"); err == nil || errors.Is(err, live.ErrOrderNotFound) {
		t.Errorf("lookup while the store cannot be read: %v, want an error that is not 'not found'", err)
	}
	if open, _ := b.OpenOrders(ctx); len(open) != 0 {
		t.Errorf("open orders: %d, want none", len(open))
	}
}

// brokenReads saves everything and can read nothing back.
type brokenReads struct{}

func (brokenReads) Save(Change) error { return nil }
func (brokenReads) OrderByID(string) ([]byte, bool, error) {
	return nil, false, errors.New("disk I/O error")
}
func (brokenReads) OrderByClientID(string) ([]byte, bool, error) {
	return nil, false, errors.New("disk I/O error")
}
