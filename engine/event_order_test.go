package engine_test

import (
	"context"
	"testing"
	"time"

	"cockpit/engine"
	"cockpit/internal/enginetest"
	"cockpit/live"
)

// notifyingBroker places through the paper broker and then holds the call until the bus has
// carried the order's update (or a short while passes): the worst interleaving for the order
// of the log, made certain.
type notifyingBroker struct {
	*enginetest.ShiftBroker
	updated    <-chan struct{}
	subscribed chan struct{}
}

func (b *notifyingBroker) Subscribe(ctx context.Context) <-chan live.OrderUpdate {
	defer close(b.subscribed)
	return b.ShiftBroker.Subscribe(ctx)
}

func (b *notifyingBroker) PlaceOrder(ctx context.Context, r live.OrderRequest) (live.Order, error) {
	o, err := b.ShiftBroker.PlaceOrder(ctx, r)
	select {
	case <-b.updated:
	case <-time.After(300 * time.Millisecond): // with the fix, the update waits for the decision
	}
	return o, err
}

// TestFillNeverBeforeItsAllow: the bus (and so the headless log) carries the ALLOW decision
// before the fill of the order it placed (issue 12).
func TestFillNeverBeforeItsAllow(t *testing.T) {
	f := enginetest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch := f.Engine.Bus.Subscribe(ctx, 64)
	updated := make(chan struct{}, 1)
	b := &notifyingBroker{ShiftBroker: f.Broker, updated: updated, subscribed: make(chan struct{})}
	f.Engine.Broker = b
	events := make(chan engine.Event, 64)
	go func() {
		for ev := range watch {
			if ev.Kind == engine.EvOrderUpdate {
				select {
				case updated <- struct{}{}:
				default:
				}
			}
			events <- ev
		}
	}()
	go f.Engine.FollowBroker(ctx)
	<-b.subscribed
	if r := f.Call("place_order", enginetest.Buy("AAPL", "100")); !r.OK() {
		t.Fatalf("place_order: %+v", r)
	}
	var kinds []engine.EventKind
	for len(kinds) == 0 || kinds[len(kinds)-1] != engine.EvOrderUpdate {
		select {
		case ev := <-events:
			if ev.Kind == engine.EvDecision || ev.Kind == engine.EvOrderUpdate {
				kinds = append(kinds, ev.Kind)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("events so far: %v", kinds)
		}
	}
	if kinds[0] != engine.EvDecision {
		t.Errorf("got %v, want the decision before the order update", kinds)
	}
}

// TestCancelledCallsAreNotDenials: write calls cut off by a stop (a cancelled context) are
// cancelled, not refusals, so they do not pause the agent as five denials in a minute do.
func TestCancelledCallsAreNotDenials(t *testing.T) {
	f := enginetest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for i := 0; i < 6; i++ {
		if r := f.Turn().Call(ctx, "place_order", enginetest.Buy("AAPL", "100")); r.Code != live.ReasonCancelled {
			t.Fatalf("call %d: got %s, want cancelled", i, r.Code)
		}
	}
	if r := f.Call("place_order", enginetest.Buy("AAPL", "100")); !r.OK() {
		t.Errorf("after six cancelled calls: got %s %s, want the order placed", r.Code, r.Detail)
	}
}
