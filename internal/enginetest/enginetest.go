// Package enginetest builds an engine for tests: the paper broker on a manual clock, a
// committed mandate, and a real store for the audit, journal and review queue.
package enginetest

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"cockpit/config"
	"cockpit/engine"
	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/jsonv"
	"cockpit/live/livetest"
	"cockpit/live/mandatefile"
	"cockpit/live/money"
	"cockpit/live/paper"
	"cockpit/store"
)

// Fixture is an engine on the paper broker with a committed mandate, a real store for the
// audit, journal and review queue, and a manual clock.
type Fixture struct {
	T      testing.TB
	Clock  *livetest.Clock
	Root   live.Root
	DB     *store.DB
	Paper  *paper.Broker
	Broker *ShiftBroker
	Faults *paper.Faults
	Gate   *gate.Gate
	Engine *engine.Engine
	Cfg    config.Config
	// CheckTerminal makes Cleanup assert exactly one terminal record per tool call.
	CheckTerminal bool
}

// ShiftBroker moves the paper broker's quotes by a factor, to simulate price drift.
type ShiftBroker struct {
	*paper.Broker
	Bps atomic.Int64 // quotes are multiplied by (1 + Bps/10000)
}

// Quote implements live.Broker.
func (b *ShiftBroker) Quote(ctx context.Context, sym string) (live.Quote, error) {
	q, err := b.Broker.Quote(ctx, sym)
	if err != nil || b.Bps.Load() == 0 {
		return q, err
	}
	f := money.FromInt(10000 + b.Bps.Load()).Div(money.FromInt(10000))
	q.Bid, q.Ask, q.Last = q.Bid.Mul(f), q.Ask.Mul(f), q.Last.Mul(f)
	return q, nil
}

// Option changes a fixture before its engine is built.
type Option func(*Fixture)

// WithPolicy parses a config.toml fragment over the defaults.
func WithPolicy(toml string) Option {
	return func(f *Fixture) {
		cfg, err := config.Parse([]byte(toml), config.Default())
		if err != nil {
			f.T.Fatal(err)
		}
		f.Cfg = cfg
	}
}

// WithMandate commits doc instead of livetest.MandateDoc.
func WithMandate(doc string) Option {
	return func(f *Fixture) { livetest.Commit(f.T, f.Root, live.PaperBroker, doc, f.Clock.Now()) }
}

// New builds a fixture at livetest.Epoch.
func New(t testing.TB, opts ...Option) *Fixture {
	t.Helper()
	f := &Fixture{T: t, Clock: livetest.NewClock(livetest.Epoch), Root: livetest.Root(t), Cfg: config.Default(), CheckTerminal: true}
	db, err := store.Open(filepath.Join(t.TempDir(), "cockpit.db"))
	if err != nil {
		t.Fatal(err)
	}
	db.Now = f.Clock.Now
	f.DB = db
	t.Cleanup(func() { db.Close() })
	mandated := false
	for _, o := range opts {
		o(f)
	}
	if _, err := mandatefile.Load(f.Root, live.PaperBroker); err == nil {
		mandated = true
	}
	if !mandated {
		livetest.Commit(t, f.Root, live.PaperBroker, "", f.Clock.Now())
	}
	f.Faults = &paper.Faults{}
	p, err := paper.New(paper.Config{Market: paper.MarketConfig{Seed: 1, Symbols: paper.DefaultSymbols()}, Now: f.Clock.Now, Faults: f.Faults, History: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	f.Paper = p
	f.Broker = &ShiftBroker{Broker: p}
	// Contention for the submit lock is waited out as the runtime does; the wait is long so
	// that a slow machine never turns it into a refusal (it only stops a hung test).
	f.Gate = &gate.Gate{Root: f.Root, Now: f.Clock.Now, Audit: db, Journal: db, Mandates: livetest.Ledger(f.Root), CountOpenOrders: true,
		LockWait: time.Minute}
	reg := &engine.Registry{}
	engine.BrokerTools(reg, f.Broker, engine.PaperBars(p.Market().History, f.Clock.Now))
	pol, err := f.Cfg.Policy.Engine()
	if err != nil {
		t.Fatal(err)
	}
	f.Engine = &engine.Engine{Root: f.Root, Gate: f.Gate, Broker: f.Broker, BrokerKey: live.PaperBroker, Policy: pol,
		Tools: reg, Reviews: store.Reviews{DB: db}, Approver: true, Bus: engine.NewBus(f.Clock.Now), Audit: db,
		Now: f.Clock.Now, Session: "s1", ReviewPoll: 2 * time.Millisecond, Costs: &engine.CostBudget{Prices: f.Cfg.Agents.LLM.EnginePrices()}}
	t.Cleanup(func() {
		if f.CheckTerminal && !t.Failed() {
			f.AssertOneTerminalPerCall()
		}
	})
	return f
}

// Turn starts a turn of the "strategy" agent.
func (f *Fixture) Turn() *engine.Turn { return f.Engine.NewTurn("strategy") }

// Call runs one tool call in a fresh turn.
func (f *Fixture) Call(tool string, args map[string]any) engine.Result {
	f.T.Helper()
	return f.Turn().Call(context.Background(), tool, args)
}

// Buy is a market buy of notional USD of sym.
func Buy(sym, notional string) map[string]any {
	return map[string]any{"symbol": sym, "side": "buy", "notional": notional, "reason": "test"}
}

// Events returns every audit event, oldest first.
func (f *Fixture) Events() []store.Event {
	f.T.Helper()
	evs, err := f.DB.Events(context.Background(), store.Filter{Limit: 100000, Ascending: true})
	if err != nil {
		f.T.Fatal(err)
	}
	return evs
}

// Terminal reports whether an event ends a tool call: its decision is allow, deny or cancel.
func Terminal(e store.Event) bool {
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

// AssertOneTerminalPerCall is prx.md §4.11 case 32: every tool call has exactly one
// terminal record.
func (f *Fixture) AssertOneTerminalPerCall() {
	f.T.Helper()
	counts := map[string]int{}
	for _, e := range f.Events() {
		if e.ToolCallID == "" {
			continue
		}
		if _, ok := counts[e.ToolCallID]; !ok {
			counts[e.ToolCallID] = 0
		}
		if Terminal(e) {
			counts[e.ToolCallID]++
		}
	}
	for id, n := range counts {
		if n != 1 {
			f.T.Errorf("tool call %s has %d terminal audit records, want 1", id, n)
		}
	}
}

// Human answers the next review item that appears with fn (called with the item); it gives
// up after 5 s of real time.
func (f *Fixture) Human(fn func(store.Approval)) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			items, err := f.DB.Approvals(context.Background(), store.ApprovalPending, 10)
			if err == nil && len(items) > 0 {
				fn(items[0])
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	return done
}

// Resolve returns an answer for Human that resolves the item to state.
func (f *Fixture) Resolve(state store.ApprovalState, why string) func(store.Approval) {
	return func(a store.Approval) {
		if _, err := f.DB.Resolve(context.Background(), a.ID, state, "operator", why); err != nil {
			f.T.Errorf("resolve: %v", err)
		}
	}
}

// Placed counts the orders that reached the paper broker.
func (f *Fixture) Placed() int {
	n := 0
	for _, c := range f.Faults.Calls() {
		if len(c) >= 5 && c[:5] == "place" {
			n++
		}
	}
	return n
}
