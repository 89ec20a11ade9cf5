package paper

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/livetest"
	"cockpit/live/money"
)

// wholeStore is a Store that keeps the whole account as one document, as a file would, and
// refuses every change while full is set.
type wholeStore struct {
	st      *State
	full    *atomic.Bool
	changes []Change
}

func (s *wholeStore) Save(c Change) error {
	if s.full != nil && s.full.Load() {
		return errors.New("database or disk is full")
	}
	next, err := s.st.With(c)
	if err != nil {
		return err
	}
	s.st, s.changes = next, append(s.changes, c)
	return nil
}

func (s *wholeStore) OrderByID(id string) ([]byte, bool, error) { return s.st.OrderByID(id) }

func (s *wholeStore) OrderByClientID(cid string) ([]byte, bool, error) {
	return s.st.OrderByClientID(cid)
}

// copy is a deep copy of the saved account, for a broker to restore from.
func (s *wholeStore) copy(t *testing.T) *State {
	t.Helper()
	data, err := json.Marshal(s.st)
	if err != nil {
		t.Fatal(err)
	}
	var st State
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	return &st
}

// savingBroker is a paper broker whose account is saved to store, until full is set.
func savingBroker(t *testing.T, clock *livetest.Clock, store *wholeStore) *Broker {
	t.Helper()
	b, err := New(Config{Market: MarketConfig{Seed: 7, Symbols: DefaultSymbols()}, Now: clock.Now, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPaperAcknowledgesOnlyWhatItSaved: while the account cannot be saved, an order is
// rejected and leaves no trace (no order, no position, no update), a cancel fails and the
// order still rests, and a crossed resting order waits; once saving works again the fill
// happens, and an account reloaded from what was saved knows every order the broker said it
// took.
func TestPaperAcknowledgesOnlyWhatItSaved(t *testing.T) {
	ctx := context.Background()
	clock := livetest.NewClock(livetest.Epoch)
	var full atomic.Bool
	saved := &wholeStore{st: &State{}, full: &full}
	b := savingBroker(t, clock, saved)
	updates := b.Subscribe(ctx)
	q, _ := b.Quote(ctx, "TSLA")
	limit := q.Bid.Mul(money.MustParse("0.998")).Round(2)
	rest, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "rest", Symbol: "TSLA", Side: live.Buy, Type: live.Limit, Quantity: amt("1"), LimitPrice: &limit})
	if err != nil || rest.Status != live.StatusAccepted {
		t.Fatalf("resting order: %+v %v", rest, err)
	}
	<-updates
	full.Store(true)
	if o, err := b.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: "mkt", Symbol: "AAPL", Side: live.Buy, Quantity: amt("1")}); err == nil || !errors.Is(err, live.ErrRejected) {
		t.Fatalf("market order on a full disk: %+v %v, want rejected", o, err)
	}
	if _, err := b.OrderByClientID(ctx, "mkt"); !errors.Is(err, live.ErrOrderNotFound) {
		t.Errorf("the unsaved order is known: %v", err)
	}
	if pos, _ := b.Positions(ctx); len(pos) != 0 {
		t.Errorf("positions after an unsaved fill: %+v", pos)
	}
	if err := b.CancelOrder(ctx, rest.ID); err == nil {
		t.Error("a cancel that could not be saved succeeded")
	}
	crossed := false
	for i := 0; i < 50_000 && !crossed; i++ {
		clock.Advance(time.Second)
		tk, _ := b.mkt.TickAt("TSLA", clock.Now())
		crossed = tk.Ask.Cmp(limit) <= 0
	}
	if !crossed {
		t.Skip("the market never crossed the resting order within 50,000 steps")
	}
	if open, _ := b.OpenOrders(ctx); len(open) != 1 {
		t.Errorf("a crossed order whose fill cannot be saved: %d open, want it still resting", len(open))
	}
	select {
	case u := <-updates:
		t.Fatalf("an update of an unsaved change was published: %+v", u.Order)
	default:
	}
	full.Store(false)
	if open, _ := b.OpenOrders(ctx); len(open) != 0 {
		t.Errorf("saving works again: %d open, want the crossed order filled", len(open))
	}
	if u := <-updates; u.Order.ClientOrderID != "rest" || u.Order.Status != live.StatusFilled {
		t.Errorf("update after the disk freed: %+v, want rest filled", u.Order)
	}
	again, err := New(Config{Market: MarketConfig{Symbols: DefaultSymbols()}, Now: clock.Now, State: saved.copy(t)})
	if err != nil {
		t.Fatal(err)
	}
	if o, err := again.OrderByClientID(ctx, "rest"); err != nil || o.Status != live.StatusFilled {
		t.Errorf("reloaded account: rest %+v %v, want filled", o, err)
	}
	if _, err := again.OrderByClientID(ctx, "mkt"); !errors.Is(err, live.ErrOrderNotFound) {
		t.Errorf("reloaded account knows the rejected order: %v", err)
	}
}
