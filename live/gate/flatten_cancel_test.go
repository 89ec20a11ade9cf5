package gate_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/gate"
)

// manyOrders lists 31 open orders on the first read (one without an id), none afterwards, and
// refuses the cancel of o05.
type manyOrders struct {
	live.Broker
	mu      sync.Mutex
	reads   int
	cancels map[string]int
}

func (b *manyOrders) orders() []live.Order {
	var out []live.Order
	for i := range 30 {
		if i == 10 {
			out = append(out, live.Order{Symbol: "NVDA", Side: live.Buy, Status: live.StatusAccepted})
		}
		out = append(out, live.Order{ID: fmt.Sprintf("o%02d", i), Symbol: "AAPL", Side: live.Buy, Status: live.StatusAccepted})
	}
	return out
}

func (b *manyOrders) OpenOrders(context.Context) ([]live.Order, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reads++
	if b.reads == 1 {
		return b.orders(), nil
	}
	return nil, nil
}

func (b *manyOrders) CancelOrder(_ context.Context, id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cancels[id]++
	if id == "o05" {
		return live.Rejected("too late")
	}
	return nil
}

// TestFlattenManyCancels: cancels run several at a time, yet each order is cancelled once, the
// report lists cancels and errors in the broker's order, the order without an id gets no
// cancel (DV16), and progress counts every order once, 1 to 31.
func TestFlattenManyCancels(t *testing.T) {
	f := newFixture(t, "")
	b := &manyOrders{Broker: f.broker, cancels: map[string]int{}}
	var mu sync.Mutex
	var done []int
	rep := f.gate.Flatten(context.Background(), b, "paper", gate.FlattenOptions{Actor: live.System("watcher", ""), Settle: time.Millisecond,
		Progress: func(p gate.FlattenProgress) {
			if p.Phase == gate.PhaseCancel {
				mu.Lock()
				done = append(done, p.Done)
				mu.Unlock()
				if p.Total != 31 {
					t.Errorf("progress total %d, want 31", p.Total)
				}
			}
		}})
	var want []string
	for i := range 30 {
		if i != 5 {
			want = append(want, fmt.Sprintf("o%02d", i))
		}
		if b.cancels[fmt.Sprintf("o%02d", i)] != 1 {
			t.Errorf("o%02d cancelled %d times, want once", i, b.cancels[fmt.Sprintf("o%02d", i)])
		}
	}
	if b.cancels[""] != 0 {
		t.Error("a cancel was sent for the order without an id")
	}
	if !slices.Equal(rep.Cancelled, want) {
		t.Errorf("cancelled %v, want %v", rep.Cancelled, want)
	}
	if len(rep.Errors) != 2 || rep.Errors[0].Item != "o05" || rep.Errors[1].Item != "(no id) NVDA buy" {
		t.Errorf("errors %+v, want o05, then the order without an id (the broker's order)", rep.Errors)
	}
	for i, d := range done {
		if d != i+1 {
			t.Fatalf("progress done %v, want 1..31 in turn", done)
		}
	}
	if len(done) != 31 {
		t.Fatalf("%d progress reports, want 31", len(done))
	}
}
