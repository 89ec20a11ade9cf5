package gate_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/gate"
)

// inFlight holds an agent's order inside PlaceOrder (under the submit lock) until released,
// and notes any read of orders or positions made meanwhile.
type inFlight struct {
	live.Broker
	entered, release chan struct{}
	holding, readIn  atomic.Bool
}

func (b *inFlight) PlaceOrder(ctx context.Context, r live.OrderRequest) (live.Order, error) {
	if r.ReduceOnly {
		return b.Broker.PlaceOrder(ctx, r)
	}
	b.holding.Store(true)
	close(b.entered)
	<-b.release
	o, err := b.Broker.PlaceOrder(ctx, r)
	b.holding.Store(false)
	return o, err
}

func (b *inFlight) OpenOrders(ctx context.Context) ([]live.Order, error) {
	if b.holding.Load() {
		b.readIn.Store(true)
	}
	return b.Broker.OpenOrders(ctx)
}

func (b *inFlight) Positions(ctx context.Context) ([]live.Position, error) {
	if b.holding.Load() {
		b.readIn.Store(true)
	}
	return b.Broker.Positions(ctx)
}

// TestFlattenWaitsForTheOrderUnderTheLock: a flatten that starts while an agent's order is
// being placed under the submit lock waits for it, so the fill is among the positions it
// closes and the account ends verified flat; before, the flatten read the broker while the
// order was in flight and ended NOT FLAT with the late fill.
func TestFlattenWaitsForTheOrderUnderTheLock(t *testing.T) {
	f := newFixture(t, "")
	b := &inFlight{Broker: f.paper, entered: make(chan struct{}), release: make(chan struct{})}
	agent := make(chan gate.Decision)
	go func() {
		in := live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity, NotionalUSD: amt("100")}
		agent <- f.gate.Submit(context.Background(), gate.Submission{Broker: b, BrokerKey: "paper", Intent: &in, Actor: live.Agent("test", "s1")})
	}()
	<-b.entered
	report := make(chan gate.FlattenReport)
	go func() {
		report <- f.gate.Flatten(context.Background(), b, "paper", gate.FlattenOptions{ClosePositions: true,
			Actor: live.System("halt-watcher", ""), Why: "test", Settle: time.Second})
	}()
	// Give a flatten that does not wait its chance to read while the order is in flight (it
	// reads at once); one that waits for the lock reads nothing until the release.
	deadline := time.Now().Add(300 * time.Millisecond)
	for !b.readIn.Load() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	close(b.release)
	if d := <-agent; d.Outcome != live.OutcomeAccepted {
		t.Fatalf("agent order: %s, want accepted", d.Message())
	}
	rep := <-report
	if b.readIn.Load() {
		t.Error("the flatten read orders or positions while an order was in flight under the submit lock")
	}
	if !rep.Flat() || len(rep.Closes) != 1 {
		t.Fatalf("flatten: %s (%d closes), want FLAT after closing the late fill", rep.Summary(), len(rep.Closes))
	}
}
