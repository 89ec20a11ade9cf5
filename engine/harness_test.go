package engine_test

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"cockpit/engine"
	"cockpit/engine/config"
	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/livetest"
	"cockpit/live/money"
	"cockpit/live/paper"
	"cockpit/store"
)

// fixture is an engine on the paper broker with a committed mandate, a real store for the
// audit, journal and review queue, and a manual clock.
type fixture struct {
	t      *testing.T
	clock  *livetest.Clock
	root   live.Root
	db     *store.DB
	paper  *paper.Broker
	broker *shiftBroker
	faults *paper.Faults
	gate   *live.Gate
	eng    *engine.Engine
	cfg    config.Config
	// checkTerminal makes Cleanup assert exactly one terminal record per tool call.
	checkTerminal bool
}

// shiftBroker moves the paper broker's quotes by a factor, to simulate price drift.
type shiftBroker struct {
	*paper.Broker
	bps atomic.Int64 // quotes are multiplied by (1 + bps/10000)
}

func (b *shiftBroker) Quote(ctx context.Context, sym string) (live.Quote, error) {
	q, err := b.Broker.Quote(ctx, sym)
	if err != nil || b.bps.Load() == 0 {
		return q, err
	}
	f := money.FromInt(10000 + b.bps.Load()).Div(money.FromInt(10000))
	q.Bid, q.Ask, q.Last = q.Bid.Mul(f), q.Ask.Mul(f), q.Last.Mul(f)
	return q, nil
}

type option func(*fixture)

func withPolicy(toml string) option {
	return func(f *fixture) {
		cfg, err := config.Parse([]byte(toml), config.Default())
		if err != nil {
			f.t.Fatal(err)
		}
		f.cfg = cfg
	}
}

func withMandate(doc string) option {
	return func(f *fixture) { livetest.Commit(f.t, f.root, live.PaperBroker, doc, f.clock.Now()) }
}

func newFixture(t *testing.T, opts ...option) *fixture {
	t.Helper()
	f := &fixture{t: t, clock: livetest.NewClock(livetest.Epoch), root: livetest.Root(t), cfg: config.Default(), checkTerminal: true}
	db, err := store.Open(filepath.Join(t.TempDir(), "cockpit.db"))
	if err != nil {
		t.Fatal(err)
	}
	db.Now = f.clock.Now
	f.db = db
	t.Cleanup(func() { db.Close() })
	mandated := false
	for _, o := range opts {
		o(f)
	}
	if _, err := live.LoadMandate(f.root, live.PaperBroker); err == nil {
		mandated = true
	}
	if !mandated {
		livetest.Commit(t, f.root, live.PaperBroker, "", f.clock.Now())
	}
	f.faults = &paper.Faults{}
	p, err := paper.New(paper.Config{Market: paper.MarketConfig{Seed: 1, Symbols: paper.DefaultSymbols()}, Now: f.clock.Now, Faults: f.faults})
	if err != nil {
		t.Fatal(err)
	}
	f.paper = p
	f.broker = &shiftBroker{Broker: p}
	f.gate = &live.Gate{Root: f.root, Now: f.clock.Now, Audit: db, Journal: db, CountOpenOrders: true}
	reg := &engine.Registry{}
	engine.BrokerTools(reg, f.broker, engine.PaperBars(p.Market().History, f.clock.Now))
	f.eng = &engine.Engine{Root: f.root, Gate: f.gate, Broker: f.broker, BrokerKey: live.PaperBroker, Policy: f.cfg.Policy,
		Tools: reg, Reviews: store.Reviews{DB: db}, Approver: true, Bus: engine.NewBus(f.clock.Now), Audit: db,
		Now: f.clock.Now, Session: "s1", ReviewPoll: 2 * time.Millisecond, Costs: &engine.CostBudget{Prices: f.cfg.Agents.LLM.Prices}}
	t.Cleanup(func() {
		if f.checkTerminal && !t.Failed() {
			f.assertOneTerminalPerCall()
		}
	})
	return f
}

func (f *fixture) turn() *engine.Turn { return f.eng.NewTurn("strategy") }

func (f *fixture) call(tool string, args map[string]any) engine.Result {
	f.t.Helper()
	return f.turn().Call(context.Background(), tool, args)
}

func buy(sym, notional string) map[string]any {
	return map[string]any{"symbol": sym, "side": "buy", "notional": notional, "reason": "test"}
}

// events returns every audit event, oldest first.
func (f *fixture) events() []store.Event {
	f.t.Helper()
	evs, err := f.db.Events(context.Background(), store.Filter{Limit: 100000, Ascending: true})
	if err != nil {
		f.t.Fatal(err)
	}
	return evs
}

// terminal reports whether an event ends a tool call: its decision is allow, deny or cancel.
func terminal(e store.Event) bool {
	v, err := jsonv.Parse([]byte(e.Payload), jsonv.Options{})
	if err != nil {
		return false
	}
	d, _ := v.(*jsonv.Object).Get("decision")
	do, ok := d.(*jsonv.Object)
	if !ok {
		return false
	}
	kind, _ := do.Get("decision")
	return kind == "allow" || kind == "deny" || kind == "cancel"
}

// assertOneTerminalPerCall is case 32: every tool call has exactly one terminal record.
func (f *fixture) assertOneTerminalPerCall() {
	f.t.Helper()
	counts := map[string]int{}
	for _, e := range f.events() {
		if e.ToolCallID == "" {
			continue
		}
		if _, ok := counts[e.ToolCallID]; !ok {
			counts[e.ToolCallID] = 0
		}
		if terminal(e) {
			counts[e.ToolCallID]++
		}
	}
	for id, n := range counts {
		if n != 1 {
			f.t.Errorf("tool call %s has %d terminal audit records, want 1", id, n)
		}
	}
}

// human answers the next review item that appears with fn (called with the item); it gives
// up after 5 s of real time.
func (f *fixture) human(fn func(store.Approval)) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			items, err := f.db.Approvals(context.Background(), store.ApprovalPending, 10)
			if err == nil && len(items) > 0 {
				fn(items[0])
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	return done
}

func (f *fixture) resolve(state store.ApprovalState, why string) func(store.Approval) {
	return func(a store.Approval) {
		if _, err := f.db.Resolve(context.Background(), a.ID, state, "operator", why); err != nil {
			f.t.Errorf("resolve: %v", err)
		}
	}
}

func (f *fixture) placed() int {
	n := 0
	for _, c := range f.faults.Calls() {
		if len(c) >= 5 && c[:5] == "place" {
			n++
		}
	}
	return n
}
