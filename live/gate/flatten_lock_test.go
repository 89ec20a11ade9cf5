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

func (b *inFlight) Positions(ctx context.Context) ([]live.Position, error) {
	if b.holding.Load() {
		b.readIn.Store(true)
	}
	return b.Broker.Positions(ctx)
}

// TestFlattenWaitsForTheOrderUnderTheLock: a flatten that starts while an agent's order is
// being placed under the submit lock sends its first cancels at once, then waits for the
// order: a fill is among the positions it closes, a resting order is cancelled on a second
// read, and the account ends verified flat. Before, the flatten read the positions while the
// order was in flight and reported FLAT with the late fill or order left standing.
func TestFlattenWaitsForTheOrderUnderTheLock(t *testing.T) {
	for _, c := range []struct {
		name                string
		order               live.OrderRequest
		closes, lateCancels int
	}{
		{"market fill", live.OrderRequest{Type: live.Market}, 1, 0},
		{"resting limit", live.OrderRequest{Type: live.Limit, LimitPrice: amt("1")}, 0, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, "")
			b := &inFlight{Broker: f.paper, entered: make(chan struct{}), release: make(chan struct{})}
			first := &live.Order{}
			placed, err := f.paper.PlaceOrder(context.Background(), live.OrderRequest{Symbol: "MSFT", Side: live.Buy,
				Type: live.Limit, Quantity: amt("1"), LimitPrice: amt("1"), ClientOrderID: "resting-before"})
			if err != nil {
				t.Fatal(err)
			}
			*first = placed
			agent := make(chan gate.Decision)
			go func() {
				in := live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity, NotionalUSD: amt("100")}
				agent <- f.gate.Submit(context.Background(), gate.Submission{Broker: b, BrokerKey: "paper", Intent: &in,
					Order: c.order, Actor: live.Agent("test", "s1")})
			}()
			<-b.entered
			report := make(chan gate.FlattenReport)
			go func() {
				report <- f.gate.Flatten(context.Background(), b, "paper", gate.FlattenOptions{ClosePositions: true,
					Actor: live.System("halt-watcher", ""), Why: "test", Settle: time.Second})
			}()
			// Give a flatten that does not wait its chance to read the positions while the order
			// is in flight; one that waits for the lock reads them only after the release.
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
				t.Error("the flatten read the positions while an order was in flight under the submit lock")
			}
			if !rep.Flat() || len(rep.Closes) != c.closes || len(rep.Cancelled) != 1+c.lateCancels || rep.Cancelled[0] != first.ID {
				t.Fatalf("flatten: %s (%d closes, cancelled %v), want FLAT with %d closes and %s cancelled first",
					rep.Summary(), len(rep.Closes), rep.Cancelled, c.closes, first.ID)
			}
		})
	}
}
