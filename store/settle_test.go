package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/auditsink"
	"cockpit/live/counter"
	"cockpit/live/gate"
	"cockpit/live/livetest"
	"cockpit/live/money"
	"cockpit/live/paper"
)

// breakingBroker makes the audit table refuse inserts while the order is at the broker.
type breakingBroker struct {
	*paper.Broker
	db *DB
}

func (b breakingBroker) PlaceOrder(ctx context.Context, r live.OrderRequest) (live.Order, error) {
	if _, err := b.db.w.Exec(`CREATE TRIGGER block BEFORE INSERT ON events BEGIN SELECT RAISE(FAIL, 'disk says no'); END`); err != nil {
		return live.Order{}, err
	}
	return b.Broker.PlaceOrder(ctx, r)
}

func settleGate(t *testing.T) (*gate.Gate, *DB, *auditsink.Memory, *paper.Broker, live.OrderIntent) {
	t.Helper()
	root := livetest.Root(t)
	db := mustOpen(t, filepath.Join(root.Dir(), "cockpit.db"))
	livetest.Commit(t, root, "paper", livetest.MandateDoc, time.Now())
	p, err := paper.New(paper.Config{Market: paper.MarketConfig{Seed: 1, Symbols: paper.DefaultSymbols()}, Cash: money.MustParse("1e9")})
	if err != nil {
		t.Fatal(err)
	}
	mirror := &auditsink.Memory{}
	g := &gate.Gate{Root: root, Audit: live.MultiSink{db, mirror}, Journal: db, Mandates: livetest.Ledger(root)}
	n := money.MustParse("100")
	return g, db, mirror, p, live.OrderIntent{Symbol: "SPY", Side: live.Buy, InstrumentType: live.ETF, NotionalUSD: &n}
}

// TestGateSettlesInOneTransaction: an accepted order's journal outcome and audit record are
// both in the store, the other sink (a mirror) has the record too, and the counter file
// follows the count.
func TestGateSettlesInOneTransaction(t *testing.T) {
	g, db, mirror, p, in := settleGate(t)
	ctx := context.Background()
	d := g.Submit(ctx, gate.Submission{Broker: p, Intent: &in})
	if d.Outcome != live.OutcomeAccepted || d.AuditErr != nil {
		t.Fatalf("got %s %v, want accepted", d.Message(), d.AuditErr)
	}
	es, _ := db.JournalEntries(ctx, "paper")
	if len(es) != 1 || es[0].State != live.JournalAccepted || es[0].OrderID == "" {
		t.Fatalf("journal %+v, want one accepted row with the broker's id", es)
	}
	evs, _ := db.Events(ctx, Filter{Type: live.KindOrderPlaced})
	if len(evs) != 1 || evs[0].ClientOrderID != d.ClientOrderID {
		t.Fatalf("order events %+v, want one for %s", evs, d.ClientOrderID)
	}
	recs := mirror.Records()
	if len(recs) == 0 || recs[len(recs)-1].Kind != live.KindOrderPlaced {
		t.Fatalf("mirror %+v, want the order_placed record", recs)
	}
	if n := counter.ReadDailyCount(g.Root, "paper", time.Now()); n != 1 {
		t.Fatalf("counter file count %d, want 1", n)
	}
}

// TestGateSentButUnrecordedHalts: an order that reached the broker but whose outcome and
// record cannot be written trips the halt latch, and stays counted (its journal row is still
// submitting); the next order is refused.
func TestGateSentButUnrecordedHalts(t *testing.T) {
	g, db, _, p, in := settleGate(t)
	ctx := context.Background()
	d := g.Submit(ctx, gate.Submission{Broker: breakingBroker{p, db}, BrokerKey: "paper", Intent: &in})
	if !d.Forwarded || d.AuditErr == nil {
		t.Fatalf("forwarded %v audit err %v, want a sent order whose record failed", d.Forwarded, d.AuditErr)
	}
	if _, on := g.Latched(); !on {
		t.Fatal("the halt latch is not set after a lost audit record")
	}
	if n, _ := db.AcceptedOrders(ctx, "paper", time.Now()); n != 1 {
		t.Fatalf("accepted orders %d, want 1", n)
	}
	if d2 := g.Submit(ctx, gate.Submission{Broker: p, Intent: &in}); d2.Forwarded {
		t.Fatal("an order was forwarded after the latch tripped")
	}
}
