package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/livetest"
	"cockpit/live/money"
	"cockpit/live/paper"
)

// TestReconciledOrderCounts is issue 10 item 4's crash: the broker accepted an order, the
// process died before the count was written, and start-up reconciliation found the order. At
// a cap of 2 that order counts, so a third order is refused (today: 3 orders against a cap
// of 2, and 4 with one more crash).
func TestReconciledOrderCounts(t *testing.T) {
	root := livetest.Root(t)
	clock := livetest.NewClock(livetest.Epoch)
	doc := strings.Replace(livetest.MandateDoc, `"max_trades_per_day": 20`, `"max_trades_per_day": 2`, 1)
	livetest.Commit(t, root, "paper", doc, clock.Now())
	db := mustOpen(t, "")
	ctx := context.Background()
	p, err := paper.New(paper.Config{Market: paper.MarketConfig{Seed: 1, Symbols: paper.DefaultSymbols()}, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	g := &gate.Gate{Root: root, Now: clock.Now, Audit: db, Journal: db, Mandates: livetest.Ledger(root)}
	buy := func() gate.Decision {
		in := live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity, NotionalUSD: amount("10")}
		return g.Submit(ctx, gate.Submission{Broker: p, Intent: &in, Actor: live.Agent("t", "s1")})
	}
	if d := buy(); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("first order: %+v", d)
	}
	// The second order: journaled and accepted by the broker, then SIGKILL before the count.
	req := live.OrderRequest{ClientOrderID: "ck_crash", Symbol: "AAPL", Side: live.Buy, Type: live.Market, Notional: amount("10")}
	if err := db.Begin(ctx, live.JournalEntry{ClientOrderID: req.ClientOrderID, Broker: "paper", Request: req, Created: clock.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.PlaceOrder(ctx, req); err != nil {
		t.Fatal(err)
	}
	if res, err := db.Reconcile(ctx, p, "paper", live.System("reconcile", "s2")); err != nil || len(res) != 1 || res[0].Now != live.JournalAccepted {
		t.Fatalf("reconcile %+v, %v", res, err)
	}
	d := buy()
	if d.Forwarded || d.Breach == nil || d.Breach.Limit != live.LimitTradesPerDay {
		t.Fatalf("third order against a cap of 2 after a reconciled crash: got %s %s forwarded=%v, want a max_trades_per_day breach",
			d.Verdict, d.Reason, d.Forwarded)
	}
	if d.Count != 2 {
		t.Errorf("count = %d, want 2", d.Count)
	}
}

// TestAcceptedOrdersQuery: orders the broker may hold (accepted, indeterminate, still
// submitting) on the broker and UTC day count; refused ones, other days, brokers and the
// operator's reduce-only orders do not.
func TestAcceptedOrdersQuery(t *testing.T) {
	db := mustOpen(t, "")
	ctx := context.Background()
	now := livetest.Epoch
	start, _ := live.DayBounds(now)
	add := func(id, broker string, reduce bool, state live.JournalState, at int) {
		created := start.Add(time.Duration(at) * time.Hour)
		if err := db.Begin(ctx, live.JournalEntry{ClientOrderID: id, Broker: broker, Request: live.OrderRequest{ReduceOnly: reduce}, Created: created}); err != nil {
			t.Fatal(err)
		}
		if state != live.JournalSubmitting {
			db.Finish(ctx, id, state, "o", "", created)
		}
	}
	add("a", "paper", false, live.JournalAccepted, 0)
	add("b", "paper", false, live.JournalAccepted, 23)
	add("c", "paper", true, live.JournalAccepted, 1)
	add("d", "paper", false, live.JournalRejected, 2)
	add("e", "paper", false, live.JournalSubmitting, 2)
	add("f", "paper", false, live.JournalAccepted, -1)
	add("g", "paper", false, live.JournalAccepted, 24)
	add("h", "alpaca", false, live.JournalAccepted, 3)
	add("i", "paper", false, live.JournalIndeterminate, 4)
	n, err := db.AcceptedOrders(ctx, "paper", now)
	if err != nil || n != 4 {
		t.Fatalf("AcceptedOrders = %d, %v; want 4 (a, b, e submitting, i indeterminate)", n, err)
	}
}

func amount(s string) *money.Amount { a := money.MustParse(s); return &a }
