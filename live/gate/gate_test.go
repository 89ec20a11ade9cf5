package gate_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/auditsink"
	"cockpit/live/counter"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
	"cockpit/live/livetest"
	"cockpit/live/money"
	"cockpit/live/paper"
	"cockpit/live/toolbroker"
)

func amt(s string) *money.Amount { a := money.MustParse(s); return &a }

// spy wraps a broker, records calls and lets a test intercept them.
type spy struct {
	live.Broker
	mu        sync.Mutex
	calls     []string
	onRead    func()
	placeErr  error
	quoteErr  error
	placed    int
	cancelled []string
}

func (s *spy) note(c string) { s.mu.Lock(); s.calls = append(s.calls, c); s.mu.Unlock() }

func (s *spy) Quote(ctx context.Context, sym string) (live.Quote, error) {
	s.note("quote")
	if s.quoteErr != nil {
		return live.Quote{}, s.quoteErr
	}
	return s.Broker.Quote(ctx, sym)
}

func (s *spy) Positions(ctx context.Context) ([]live.Position, error) {
	s.note("positions")
	if s.onRead != nil {
		s.onRead()
	}
	return s.Broker.Positions(ctx)
}

func (s *spy) PlaceOrder(ctx context.Context, r live.OrderRequest) (live.Order, error) {
	s.note("place")
	if s.placeErr != nil {
		return live.Order{}, s.placeErr
	}
	o, err := s.Broker.PlaceOrder(ctx, r)
	if err == nil {
		s.mu.Lock()
		s.placed++
		s.mu.Unlock()
	}
	return o, err
}

func (s *spy) CancelOrder(ctx context.Context, id string) error {
	s.note("cancel")
	err := s.Broker.CancelOrder(ctx, id)
	if err == nil {
		s.mu.Lock()
		s.cancelled = append(s.cancelled, id)
		s.mu.Unlock()
	}
	return err
}

type fixture struct {
	root    live.Root
	clock   *livetest.Clock
	paper   *paper.Broker
	broker  *spy
	gate    *gate.Gate
	audit   *auditsink.Memory
	journal *live.MemoryJournal
}

func newFixture(t testing.TB, doc string) *fixture {
	t.Helper()
	f := &fixture{root: livetest.Root(t), clock: livetest.NewClock(livetest.Epoch), audit: &auditsink.Memory{}, journal: &live.MemoryJournal{}}
	p, err := paper.New(paper.Config{Market: paper.MarketConfig{Seed: 1, Symbols: paper.DefaultSymbols()}, Now: f.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	f.paper, f.broker = p, &spy{Broker: p}
	if doc != "-" {
		livetest.Commit(t, f.root, "paper", doc, f.clock.Now())
	}
	f.gate = &gate.Gate{Root: f.root, Now: f.clock.Now, Audit: f.audit, Journal: f.journal, Mandates: livetest.Ledger(f.root)}
	return f
}

func (f *fixture) buy(sym string, notional, qty string) gate.Decision {
	in := live.OrderIntent{Symbol: sym, Side: live.Buy, InstrumentType: live.Equity}
	if notional != "" {
		in.NotionalUSD = amt(notional)
	}
	if qty != "" {
		in.Quantity = amt(qty)
	}
	return f.gate.Submit(context.Background(), gate.Submission{Broker: f.broker, Intent: &in, Actor: live.Agent("test", "s1")})
}

func (f *fixture) lastAudit(t *testing.T) live.AuditRecord {
	t.Helper()
	recs := f.audit.Records()
	if len(recs) == 0 {
		t.Fatal("no audit record")
	}
	return recs[len(recs)-1]
}

func TestGateAllowForwardsOnceAndCounts(t *testing.T) {
	f := newFixture(t, "")
	d := f.buy("AAPL", "1000", "")
	if d.Verdict != live.Allow || d.Outcome != live.OutcomeAccepted || d.Order == nil || d.Count != 1 {
		t.Fatalf("decision %+v", d)
	}
	if got := counter.ReadDailyCount(f.root, "paper", f.clock.Now()); got != 1 {
		t.Fatalf("count file %d, want 1", got)
	}
	if e := f.journal.Entries(); len(e) != 1 || e[0].State != live.JournalAccepted || e[0].OrderID != d.Order.ID {
		t.Fatalf("journal %+v", e)
	}
	recs := f.audit.Records()
	if len(recs) != 1 || recs[0].Kind != live.KindOrderPlaced || recs[0].Outcome != live.OutcomeAccepted || recs[0].Intent != "buy $1000 AAPL (equity)" {
		t.Fatalf("audit %+v", recs)
	}
	if got := strings.Join(f.broker.calls, ","); got != "positions,place" {
		t.Fatalf("broker calls %s", got)
	}
}

func TestGateDenialsBeforeTheBroker(t *testing.T) {
	cases := []struct {
		name  string
		setup func(f *fixture)
		code  live.Reason
	}{
		{"no mandate", func(f *fixture) { f.gate.Root = livetest.Root(t) }, live.ReasonNoMandate},
		{"expired", func(f *fixture) { f.clock.Advance(31 * 24 * time.Hour) }, live.ReasonExpired},
		{"halted", func(f *fixture) {
			halt.Trip(f.root, live.HaltSentinel, live.GlobalScope, "t", "x", f.clock.Now())
		}, live.ReasonHalted},
		{"no journal", func(f *fixture) { f.gate.Journal = nil }, live.ReasonJournal},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, "")
			c.setup(f)
			d := f.buy("AAPL", "100", "")
			if d.Verdict != live.Deny || d.Reason != c.code || d.Forwarded {
				t.Fatalf("decision %+v, want DENY %s", d, c.code)
			}
			if f.broker.placed != 0 {
				t.Fatal("the broker got an order")
			}
			if rec := f.lastAudit(t); rec.Kind != live.KindOrderRejected || rec.Outcome != live.OutcomeBlocked || rec.Reason != c.code {
				t.Fatalf("audit %+v", rec)
			}
		})
	}
}

// TestGateHaltDuringReads trips HALT while the gate reads positions: the order must not be
// forwarded (the reference checks only once, before the reads; DV5).
func TestGateHaltDuringReads(t *testing.T) {
	f := newFixture(t, "")
	f.broker.onRead = func() { halt.Trip(f.root, live.HaltSentinel, live.GlobalScope, "other", "mid-flight", f.clock.Now()) }
	d := f.buy("AAPL", "100", "")
	if d.Reason != live.ReasonHalted || d.Forwarded || f.broker.placed != 0 {
		t.Fatalf("decision %+v", d)
	}
}

func TestGateLockBusy(t *testing.T) {
	f := newFixture(t, "")
	l, err := counter.TrySubmitLock(f.root, "paper")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	if d := f.buy("AAPL", "100", ""); d.Reason != live.ReasonLockBusy {
		t.Fatalf("decision %+v", d)
	}
}

func TestGateValuesQuantityOrders(t *testing.T) {
	f := newFixture(t, "")
	q, _ := f.paper.Quote(context.Background(), "MSFT")
	d := f.buy("MSFT", "", "20") // 20 × ~418 > 5000: breach at the valued notional
	if d.Verdict != live.PauseForReauth || d.Breach.Limit != live.LimitOrderNotional {
		t.Fatalf("decision %+v", d)
	}
	want := q.ValuationPrice(live.Buy).Mul(money.FromInt(20))
	if !d.Breach.Attempted.Equal(want) {
		t.Fatalf("valued at %s, want %s", d.Breach.Attempted, want)
	}
	f.broker.quoteErr = errors.New("feed down")
	if d := f.buy("MSFT", "", "1"); d.Reason != live.ReasonNoQuote {
		t.Fatalf("no quote: %+v", d)
	}
}

func TestGateApprovalWaivesOnlyTheShownBreach(t *testing.T) {
	f := newFixture(t, "")
	in := live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity, NotionalUSD: amt("6000")}
	// The human saw the order cap breached at 9000: it covers this 6000 order.
	grant := &live.Approval{Grant: "ap_1", Waives: []live.Breach{{Kind: live.KindQuantitative, Limit: live.LimitOrderNotional, Attempted: money.MustParse("9000")}},
		Mandate: livetest.PinFile(f.root, "paper")["paper"]}
	d := f.gate.Submit(context.Background(), gate.Submission{Broker: f.broker, Intent: &in, Approval: grant})
	if d.Verdict != live.Allow || d.ApprovalID != "ap_1" || !d.Forwarded {
		t.Fatalf("approved order: %+v", d)
	}
	// A second, larger order also breaches exposure after the first fill: the grant for the
	// order cap must not carry it.
	doc := strings.Replace(livetest.MandateDoc, `"max_total_exposure_usd": 100000`, `"max_total_exposure_usd": 8000`, 1)
	g := newFixture(t, doc)
	grant.Mandate = livetest.PinFile(g.root, "paper")["paper"] // the card of this mandate
	in.NotionalUSD = amt("9000")
	d = g.gate.Submit(context.Background(), gate.Submission{Broker: g.broker, Intent: &in, Approval: grant})
	if d.Verdict != live.PauseForReauth || d.Breach.Limit != live.LimitTotalExposure || d.Forwarded {
		t.Fatalf("second breach must still pause: %+v", d)
	}
}

// TestGateApprovalWaivesOnlyUpToTheValueShown: the gate itself checks the approval's values:
// an order cap shown at 6000 does not cover the same cap breached at 6001, and the day's count
// gets no drift tolerance.
func TestGateApprovalWaivesOnlyUpToTheValueShown(t *testing.T) {
	shown := func(f *fixture, limit, v string) *live.Approval {
		return &live.Approval{Grant: "ap_1", DriftBps: 0, Waives: []live.Breach{{Kind: live.KindQuantitative, Limit: limit, Attempted: money.MustParse(v)}},
			Mandate: livetest.PinFile(f.root, "paper")["paper"]}
	}
	for _, c := range []struct {
		notional string
		sent     bool
	}{{"6000", true}, {"5500", true}, {"6001", false}} {
		f := newFixture(t, "")
		in := live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity, NotionalUSD: amt(c.notional)}
		d := f.gate.Submit(context.Background(), gate.Submission{Broker: f.broker, Intent: &in, Approval: shown(f, live.LimitOrderNotional, "6000")})
		if d.Forwarded != c.sent || d.ApprovalID != "ap_1" {
			t.Errorf("%s against 6000 shown: forwarded %v (want %v), approval %q", c.notional, d.Forwarded, c.sent, d.ApprovalID)
		}
		if !c.sent && (d.Verdict != live.PauseForReauth || d.Breach.Limit != live.LimitOrderNotional) {
			t.Errorf("%s against 6000 shown: %+v, want a pause on the order cap", c.notional, d)
		}
	}
}

func TestGateBrokerOutcomes(t *testing.T) {
	t.Run("rejected: no count", func(t *testing.T) {
		f := newFixture(t, "")
		f.broker.placeErr = live.Rejected("market closed")
		d := f.buy("AAPL", "100", "")
		if d.Outcome != live.OutcomeRejected || d.Count != 0 || counter.ReadDailyCount(f.root, "paper", f.clock.Now()) != 0 {
			t.Fatalf("decision %+v", d)
		}
		if rec := f.lastAudit(t); rec.Kind != live.KindOrderRejected || rec.Outcome != live.OutcomeError || rec.Error != "market closed" {
			t.Fatalf("audit %+v", rec)
		}
		if e := f.journal.Entries()[0]; e.State != live.JournalRejected {
			t.Fatalf("journal %+v", e)
		}
	})
	t.Run("reply lost: reconciled by client id, counted, not resent", func(t *testing.T) {
		f := newFixture(t, "")
		faults := &paper.Faults{Plan: func(op string, n int) paper.FaultKind {
			if op == "place_order" {
				return paper.TimeoutAfter
			}
			return paper.NoFault
		}}
		p, _ := paper.New(paper.Config{Market: paper.MarketConfig{Seed: 1, Symbols: paper.DefaultSymbols()}, Now: f.clock.Now, Faults: faults})
		f.broker.Broker = p
		d := f.buy("AAPL", "100", "")
		if d.Outcome != live.OutcomeAccepted || d.Count != 1 || d.Order == nil {
			t.Fatalf("decision %+v", d)
		}
		if n := strings.Count(strings.Join(f.broker.calls, ","), "place"); n != 1 {
			t.Fatalf("%d place calls, want exactly 1", n)
		}
	})
	t.Run("lost on the way: not counted", func(t *testing.T) {
		f := newFixture(t, "")
		faults := &paper.Faults{Plan: func(op string, n int) paper.FaultKind {
			if op == "place_order" {
				return paper.TimeoutBefore
			}
			return paper.NoFault
		}}
		p, _ := paper.New(paper.Config{Market: paper.MarketConfig{Seed: 1, Symbols: paper.DefaultSymbols()}, Now: f.clock.Now, Faults: faults})
		f.broker.Broker = p
		d := f.buy("AAPL", "100", "")
		if d.Outcome != live.OutcomeRejected || d.Count != 0 {
			t.Fatalf("decision %+v", d)
		}
	})
}

func TestReduceOnlyState(t *testing.T) {
	f := newFixture(t, "")
	if d := f.buy("AAPL", "1000", ""); d.Outcome != live.OutcomeAccepted {
		t.Fatal(d.Message())
	}
	halt.Trip(f.root, live.ReduceOnlySentinel, live.BrokerScope("paper"), "t", "wind down", f.clock.Now())
	if d := f.buy("MSFT", "100", ""); d.Reason != live.ReasonReduceOnly {
		t.Fatalf("increasing order: %+v", d)
	}
	sell := live.OrderIntent{Symbol: "AAPL", Side: live.Sell, InstrumentType: live.Equity, NotionalUSD: amt("500")}
	if d := f.gate.Submit(context.Background(), gate.Submission{Broker: f.broker, Intent: &sell}); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("reducing sell: %s", d.Message())
	}
	flip := live.OrderIntent{Symbol: "AAPL", Side: live.Sell, InstrumentType: live.Equity, NotionalUSD: amt("5000")}
	if d := f.gate.Submit(context.Background(), gate.Submission{Broker: f.broker, Intent: &flip}); d.Reason != live.ReasonReduceOnly {
		t.Fatalf("flipping sell: %+v", d)
	}
}

func TestControls(t *testing.T) {
	doc := strings.Replace(livetest.MandateDoc, `"hard_caps"`, `"controls": {"max_order_quantity": 50, "price_collar_bps": 100,
	 "duplicate_window_ms": 60000, "max_orders_per_minute": 3}, "hard_caps"`, 1)
	f := newFixture(t, doc)
	ctx := context.Background()
	if d := f.buy("NVDA", "", "60"); d.Reason != live.ReasonQuantityCap {
		t.Fatalf("quantity cap: %+v", d)
	}
	if d := f.buy("NVDA", "4000", ""); d.Reason != live.ReasonQuantityCap { // 4000/121.8 ≈ 33 ok? no: 32.8 < 50
		if d.Outcome != live.OutcomeAccepted {
			t.Fatalf("notional order under the quantity cap: %s", d.Message())
		}
	}
	q, _ := f.paper.Quote(ctx, "SPY")
	far := q.Ask.Mul(money.MustParse("1.05"))
	in := live.OrderIntent{Symbol: "SPY", Side: live.Buy, InstrumentType: live.ETF, Quantity: amt("1"), LimitPrice: &far}
	d := f.gate.Submit(ctx, gate.Submission{Broker: f.broker, Intent: &in, Order: live.OrderRequest{Type: live.Limit, LimitPrice: &far}})
	if d.Reason != live.ReasonPriceCollar {
		t.Fatalf("collar: %+v", d)
	}
	if d := f.buy("AAPL", "100", ""); d.Outcome != live.OutcomeAccepted {
		t.Fatal(d.Message())
	}
	if d := f.buy("AAPL", "100", ""); d.Reason != live.ReasonDuplicate {
		t.Fatalf("duplicate: %+v", d)
	}
	if d := f.buy("AAPL", "101", ""); d.Outcome != live.OutcomeAccepted {
		t.Fatal(d.Message())
	}
	if d := f.buy("AAPL", "102", ""); d.Reason != live.ReasonRateLimited {
		t.Fatalf("rate: %+v", d)
	}
	f.clock.Advance(61 * time.Second)
	if d := f.buy("AAPL", "103", ""); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("after a minute: %s", d.Message())
	}
}

func TestOperatorPathWorksWhileHalted(t *testing.T) {
	f := newFixture(t, "")
	ctx := context.Background()
	f.buy("AAPL", "1000", "")
	halt.Trip(f.root, live.HaltSentinel, live.GlobalScope, "t", "stop", f.clock.Now())
	pos, _ := f.paper.Positions(ctx)
	op := live.Operator("alice", "tui")
	d := f.gate.SubmitReducing(ctx, gate.ReduceRequest{Broker: f.broker, Symbol: "AAPL", Side: live.Sell, Quantity: pos[0].Qty.Add(money.FromInt(1)), Actor: op})
	if d.Reason != live.ReasonNotReducing {
		t.Fatalf("flipping close: %+v", d)
	}
	d = f.gate.SubmitReducing(ctx, gate.ReduceRequest{Broker: f.broker, Symbol: "AAPL", Side: live.Sell, Quantity: pos[0].Qty, Actor: op})
	if d.Outcome != live.OutcomeAccepted {
		t.Fatalf("close while halted: %s", d.Message())
	}
	if rec := f.lastAudit(t); rec.Actor.Kind != live.ActorOperator || rec.Kind != live.KindOrderPlaced {
		t.Fatalf("audit %+v", rec)
	}
	if got := counter.ReadDailyCount(f.root, "paper", f.clock.Now()); got != 1 {
		t.Fatalf("operator orders must not count: %d", got)
	}
}

func TestFlattenVerifies(t *testing.T) {
	f := newFixture(t, "")
	ctx := context.Background()
	f.buy("AAPL", "1000", "")
	f.buy("MSFT", "2000", "")
	low := money.MustParse("1")
	for i := 0; i < 3; i++ {
		f.paper.PlaceOrder(ctx, live.OrderRequest{Symbol: "NVDA", Side: live.Buy, Type: live.Limit, Quantity: amt("1"), LimitPrice: &low})
	}
	var steps []gate.FlattenPhase
	rep := f.gate.Flatten(ctx, f.broker, "paper", gate.FlattenOptions{ClosePositions: true, Actor: live.Operator("alice", "tui"),
		Progress: func(p gate.FlattenProgress) { steps = append(steps, p.Phase) }})
	if !rep.Flat() || !strings.HasPrefix(rep.Summary(), "FLAT (verified ") || len(rep.Cancelled) != 3 || len(rep.Closes) != 2 {
		t.Fatalf("report %+v: %s", rep, rep.Summary())
	}
	if steps[len(steps)-1] != gate.PhaseDone {
		t.Fatalf("progress %v", steps)
	}
	if rec := f.lastAudit(t); rec.Kind != live.KindFlatten || rec.Outcome != live.OutcomeAccepted {
		t.Fatalf("audit %+v", rec)
	}
}

func TestFlattenCancelOnlyAndStranded(t *testing.T) {
	f := newFixture(t, "")
	ctx := context.Background()
	f.buy("AAPL", "1000", "")
	low := money.MustParse("1")
	o, _ := f.paper.PlaceOrder(ctx, live.OrderRequest{Symbol: "NVDA", Side: live.Buy, Type: live.Limit, Quantity: amt("1"), LimitPrice: &low})
	rep := f.gate.Flatten(ctx, &rejectCancel{Broker: f.broker, ids: map[string]bool{o.ID: true}}, "paper",
		gate.FlattenOptions{Actor: live.System("watcher", ""), Settle: 20 * time.Millisecond})
	want := "NOT FLAT: 1 order still resting (" + o.ID + "); 1 position open (AAPL +"
	if rep.Flat() || !strings.HasPrefix(rep.Summary(), want) || !strings.Contains(rep.Summary(), "cancel-only") {
		t.Fatalf("summary %q, want prefix %q", rep.Summary(), want)
	}
}

// TestFlattenCancelOnlyKeepsPositions: a cancel-only halt that cleared every order is
// complete (audited accepted) but never called flat.
func TestFlattenCancelOnlyKeepsPositions(t *testing.T) {
	f := newFixture(t, "")
	ctx := context.Background()
	f.buy("AAPL", "1000", "")
	low := money.MustParse("1")
	if _, err := f.paper.PlaceOrder(ctx, live.OrderRequest{Symbol: "NVDA", Side: live.Buy, Type: live.Limit, Quantity: amt("1"), LimitPrice: &low}); err != nil {
		t.Fatal(err)
	}
	var done *gate.FlattenProgress
	rep := f.gate.Flatten(ctx, f.broker, "paper", gate.FlattenOptions{Actor: live.System("watcher", ""), Settle: 20 * time.Millisecond,
		Progress: func(p gate.FlattenProgress) {
			if p.Phase == gate.PhaseDone {
				done = &p
			}
		}})
	if done == nil || !done.OK { // the headless log said "flatten done … FAILED" after a normal cancel-only halt
		t.Errorf("the done step %+v, want OK: a cancel-only halt that cleared every order did what was asked", done)
	}
	if rep.Flat() || !rep.Complete() || len(rep.Cancelled) != 1 {
		t.Fatalf("flat %v complete %v cancelled %v: %s", rep.Flat(), rep.Complete(), rep.Cancelled, rep.Summary())
	}
	if got, want := rep.Summary(), "1 position open (AAPL +"; !strings.HasPrefix(got, "ORDERS CLEARED (verified ") || !strings.Contains(got, want) || !strings.Contains(got, "cancel-only") {
		t.Errorf("summary %q, want ORDERS CLEARED … %q … cancel-only", got, want)
	}
	if rec := f.lastAudit(t); rec.Kind != live.KindFlatten || rec.Outcome != live.OutcomeAccepted {
		t.Errorf("audit %s/%s, want flatten/accepted", rec.Kind, rec.Outcome)
	}
}

type rejectCancel struct {
	live.Broker
	ids map[string]bool
}

func (r *rejectCancel) CancelOrder(ctx context.Context, id string) error {
	if r.ids[id] {
		return live.Rejected("cancel rejected")
	}
	return r.Broker.CancelOrder(ctx, id)
}

func TestToolShapedSubmission(t *testing.T) {
	f := newFixture(t, "")
	args := jsonv.ObjectOf("symbol", "aapl", "side", "BUY", "instrument_type", "stock", "notional_usd", jsonv.Number("100"))
	caller := &replyCaller{replies: map[string]any{
		"get_equity_positions": jsonv.ObjectOf("positions", []any{}),
		"get_portfolio":        jsonv.ObjectOf("equity", jsonv.Number("5000")),
		"place_equity_order":   jsonv.ObjectOf("status", "ok", "order_id", "rh_1"),
	}}
	tb := &toolbroker.Broker{Key: "paper", Profile: live.Robinhood(), Caller: caller, Now: f.clock.Now}
	d := f.gate.Submit(context.Background(), gate.Submission{Broker: tb, Profile: live.Robinhood(), Tool: "place_equity_order", Args: args})
	if d.Outcome != live.OutcomeAccepted || d.Order.ID != "rh_1" {
		t.Fatalf("decision %+v", d)
	}
	if got := strings.Join(caller.calls, ","); got != "get_equity_positions,get_portfolio,place_equity_order" {
		t.Fatalf("calls %s", got)
	}
	if !jsonv.Equal(caller.lastArgs, args) {
		t.Fatal("the broker did not get the agent's original arguments")
	}
}

type replyCaller struct {
	replies  map[string]any
	calls    []string
	lastArgs *jsonv.Object
}

func (r *replyCaller) CallTool(_ context.Context, name string, args *jsonv.Object) (any, error) {
	r.calls = append(r.calls, name)
	r.lastArgs = args
	return r.replies[name], nil
}
