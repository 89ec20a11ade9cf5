package faults

import (
	"context"
	"math/rand"
	"sync"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/paper"
	"cockpit/store"
)

// watchedBroker records what the gate asked the broker: each quote's outcome, and every
// order sent, by client order id.
type watchedBroker struct {
	*paper.Broker
	mu     sync.Mutex
	quotes []error
	sent   map[string]int
}

func (w *watchedBroker) Quote(ctx context.Context, sym string) (live.Quote, error) {
	q, err := w.Broker.Quote(ctx, sym)
	w.mu.Lock()
	w.quotes = append(w.quotes, err)
	w.mu.Unlock()
	return q, err
}

func (w *watchedBroker) PlaceOrder(ctx context.Context, r live.OrderRequest) (live.Order, error) {
	w.mu.Lock()
	w.sent[r.ClientOrderID]++
	w.mu.Unlock()
	return w.Broker.PlaceOrder(ctx, r)
}

// takeQuotes returns the quote outcomes since the last call.
func (w *watchedBroker) takeQuotes() []error {
	w.mu.Lock()
	defer w.mu.Unlock()
	q := w.quotes
	w.quotes = nil
	return q
}

// TestRandomBrokerFaults sends 300 quantity orders through the durable gate to a paper broker
// that fails at random — error envelopes, timeouts before and after the broker acts (a lost
// reply, a disconnect), failed reads — while the gate's clock is at random far enough ahead
// that the broker's quote is stale. No order is allowed without a fresh quote, none is sent
// twice, every decision has its audit record, and the journal agrees with every outcome.
func TestRandomBrokerFaults(t *testing.T) {
	root := durableRoot(t, roomyMandate("1000000", `{"max_quote_age_ms": 5000}`))
	db := openStore(t, root)
	defer db.Close()
	rng := rand.New(rand.NewSource(15))
	var rmu sync.Mutex
	kinds := []paper.FaultKind{paper.NoFault, paper.NoFault, paper.NoFault, paper.ErrorReply, paper.TimeoutBefore, paper.TimeoutAfter}
	faults := &paper.Faults{Plan: func(op string, _ int) paper.FaultKind {
		rmu.Lock()
		defer rmu.Unlock()
		return kinds[rng.Intn(len(kinds))]
	}}
	b := &watchedBroker{Broker: newPaper(t, faults), sent: map[string]int{}}
	var skew time.Duration
	g := gateOn(db, root)
	g.Now = func() time.Time { return time.Now().Add(skew) }
	before, _ := db.LastSeq(ctx)
	const orders = 300
	outcomes := map[string]string{}
	allowed := 0
	for i := range orders {
		skew = 0
		if rng.Intn(4) == 0 {
			skew = 10 * time.Second // every quote the broker gives is 10 s old by the gate's clock
		}
		in := quantity([]string{"1", "2", "3"}[i%3])
		d := g.Submit(ctx, gate.Submission{Broker: b, BrokerKey: "paper", Intent: &in, Actor: live.Agent("faults", "s")})
		quotes := b.takeQuotes()
		if d.AuditErr != nil {
			t.Fatalf("order %d: audit error %v", i, d.AuditErr)
		}
		if d.Verdict == live.Allow {
			allowed++
			fresh := skew == 0 && len(quotes) > 0 && quotes[0] == nil
			if !fresh {
				t.Fatalf("order %d allowed without a fresh quote (skew %v, quote errors %v)", i, skew, quotes)
			}
		}
		if d.Forwarded {
			outcomes[d.ClientOrderID] = d.Outcome
		}
	}
	for id, n := range b.sent {
		if n != 1 {
			t.Fatalf("order %s sent %d times", id, n)
		}
	}
	last, _ := db.LastSeq(ctx)
	if got := last - before; got != orders {
		t.Fatalf("%d audit records for %d decisions, want one each", got, orders)
	}
	entries, _ := db.JournalEntries(ctx, "paper")
	journal := map[string]live.JournalState{}
	for _, e := range entries {
		journal[e.ClientOrderID] = e.State
	}
	want := map[string]live.JournalState{live.OutcomeAccepted: live.JournalAccepted, live.OutcomeRejected: live.JournalRejected,
		live.OutcomeIndeterminate: live.JournalIndeterminate}
	for id, out := range outcomes {
		if journal[id] != want[out] {
			t.Fatalf("order %s: outcome %s, journal %q", id, out, journal[id])
		}
		evs, _ := db.Events(ctx, store.Filter{OrderID: id})
		if len(evs) != 1 {
			t.Fatalf("order %s: %d audit records, want 1", id, len(evs))
		}
	}
	if len(b.sent) != len(outcomes) || allowed != len(outcomes) {
		t.Fatalf("broker saw %d orders, gate forwarded %d, allowed %d", len(b.sent), len(outcomes), allowed)
	}
	if allowed < 20 || allowed > orders-20 {
		t.Fatalf("%d of %d orders allowed: the faults did not mix enough", allowed, orders)
	}
	t.Logf("%d decisions, %d forwarded (%v), every one audited and journaled", orders, allowed, tally(outcomes))
}

func tally(m map[string]string) map[string]int {
	out := map[string]int{}
	for _, v := range m {
		out[v]++
	}
	return out
}
