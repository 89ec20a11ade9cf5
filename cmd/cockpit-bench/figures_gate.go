package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/mandatefile"
	"cockpit/live/money"
	"cockpit/live/paper"
	"cockpit/session"
	"cockpit/store"
)

// benchMandate lets the gate accept every bench order: huge caps, a million orders a day.
const benchMandate = `{"hard_caps": {"account_funding_usd": 1000000000, "max_order_notional_usd": 5000,
 "max_total_exposure_usd": 1000000000, "max_leverage": 1, "allowed_instruments": ["equity", "etf"], "max_trades_per_day": 1000000},
 "universe": {"asset_classes": ["us_equity", "us_etf"], "min_market_cap_usd": null, "min_avg_daily_volume_usd": null, "exclude_symbols": []}}`

// gateEnv is a runtime root with a durable store (anchored as a session anchors it) and a
// mandate committed, and recorded in the store, for each broker key.
type gateEnv struct {
	root live.Root
	db   *store.DB
	g    *gate.Gate
}

func newGateEnv(c config, name string, keys ...string) (*gateEnv, error) {
	root, err := live.NewRoot(filepath.Join(c.tmp, name))
	if err != nil {
		return nil, err
	}
	db, err := store.Open(filepath.Join(root.Dir(), "cockpit.db"))
	if err != nil {
		return nil, err
	}
	db.SetAnchor(filepath.Join(root.Dir(), store.AnchorFile))
	db.AnchorEvery = session.AnchorEvery
	now := time.Now()
	for _, k := range keys {
		res, err := mandatefile.CommitFile(mandatefile.FileCommit{Root: root, Broker: k, Document: []byte(benchMandate),
			Source: "cockpit-bench", ConsentAck: true, Now: now, SessionID: "bench"})
		if err != nil {
			db.Close()
			return nil, err
		}
		if err := db.Record(context.Background(), mandatefile.CommitRecord(now, live.Operator("bench", "bench"), "bench", "bench", res)); err != nil {
			db.Close()
			return nil, err
		}
	}
	g := &gate.Gate{Root: root, Audit: db, Journal: db, Mandates: db}
	return &gateEnv{root: root, db: db, g: g}, nil
}

func newPaper(key string, symbols []paper.SymbolSpec) (*paper.Broker, error) {
	if symbols == nil {
		symbols = paper.DefaultSymbols()
	}
	return paper.New(paper.Config{Key: key, Market: paper.MarketConfig{Seed: 1, Symbols: symbols}, Cash: money.MustParse("1e12")})
}

func spyOrder() live.OrderIntent {
	n := money.MustParse("100")
	return live.OrderIntent{Symbol: "SPY", Side: live.Buy, InstrumentType: live.ETF, NotionalUSD: &n}
}

// figGateSequential: in-mandate orders one after another through the durable gate to the paper
// broker (probe, write-ahead journal, forward, count, outcome and audit record).
func figGateSequential(c config) ([]Figure, error) {
	env, err := newGateEnv(c, "gate-seq", "paper")
	if err != nil {
		return nil, err
	}
	defer env.db.Close()
	p, err := newPaper("paper", nil)
	if err != nil {
		return nil, err
	}
	in := spyOrder()
	ctx := context.Background()
	// Rounds of orders take turns with rounds of the disk's fsync probe, in the same
	// directory, so the fraction of the bound compares the two under the same load.
	const rounds = 10
	n, probes := c.size(200, 3000), c.size(200, 2000)
	samples := make([]time.Duration, 0, n)
	var probe []time.Duration
	var busy time.Duration // the orders' time only
	for range rounds {
		start := time.Now()
		for range n / rounds {
			t0 := time.Now()
			d := env.g.Submit(ctx, gate.Submission{Broker: p, Intent: &in})
			samples = append(samples, time.Since(t0))
			if d.Outcome != live.OutcomeAccepted || d.AuditErr != nil {
				return nil, fmt.Errorf("order not accepted: %s %v", d.Message(), d.AuditErr)
			}
		}
		busy += time.Since(start)
		s, err := fsyncProbe(env.root.Dir(), probes/rounds)
		if err != nil {
			return nil, fmt.Errorf("fsync probe: %w", err)
		}
		probe = append(probe, s...)
	}
	rate := float64(len(samples)) / busy.Seconds()
	note := fmt.Sprintf("%d orders in %d rounds", len(samples), rounds)
	figs := []Figure{
		{Name: "durable gate, sequential", Value: rate, Unit: "orders/s", Note: note},
		{Name: "durable gate, sequential, p50", Value: pct(samples, 0.50) / 1000, Unit: "ms"},
		{Name: "durable gate, sequential, p99", Value: pct(samples, 0.99) / 1000, Unit: "ms"},
	}
	return append(figs, boundFigures(probe, rate)...), nil
}

// figGateFour: four agents, each on its own broker, submitting as fast as they can through one
// gate and one store (their commits are shared).
func figGateFour(c config) ([]Figure, error) {
	keys := []string{"paper", "paper-b", "paper-c", "paper-d"}
	env, err := newGateEnv(c, "gate-four", keys...)
	if err != nil {
		return nil, err
	}
	defer env.db.Close()
	dur := time.Duration(c.size(2, 10)) * time.Second
	var decisions, accepted atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, len(keys))
	start := time.Now()
	for _, k := range keys {
		p, err := newPaper(k, nil)
		if err != nil {
			return nil, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := spyOrder()
			for time.Since(start) < dur {
				d := env.g.Submit(context.Background(), gate.Submission{Broker: p, BrokerKey: k, Intent: &in})
				if d.AuditErr != nil {
					errs <- d.AuditErr
					return
				}
				decisions.Add(1)
				if d.Outcome == live.OutcomeAccepted {
					accepted.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	took := time.Since(start).Seconds()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	return []Figure{
		{Name: "4 agents on 4 brokers, durable", Value: float64(decisions.Load()) / took, Unit: "decisions/s"},
		{Name: "4 agents on 4 brokers, accepted", Value: float64(accepted.Load()) / took, Unit: "orders/s"},
	}, nil
}

// cancelSpy timestamps the first cancel after a mark.
type cancelSpy struct {
	live.Broker
	mu   sync.Mutex
	seen chan time.Time
}

func (s *cancelSpy) CancelOrder(ctx context.Context, id string) error {
	s.mu.Lock()
	ch := s.seen
	s.seen = nil
	s.mu.Unlock()
	if ch != nil {
		ch <- time.Now()
	}
	return s.Broker.CancelOrder(ctx, id)
}

// figHalt: HALT file → the broker's first cancel, through the watcher (fsnotify and poll) and
// the halt action; and HALT → a verified FLAT with 1,000 resting orders and 100 positions.
func figHalt(c config) ([]Figure, error) {
	first, err := haltFirstCancel(c)
	if err != nil {
		return nil, err
	}
	flat, err := haltToFlat(c)
	if err != nil {
		return first, err
	}
	return append(first, flat...), nil
}

func haltFirstCancel(c config) ([]Figure, error) {
	env, err := newGateEnv(c, "halt-first", "paper")
	if err != nil {
		return nil, err
	}
	defer env.db.Close()
	p, err := newPaper("paper", nil)
	if err != nil {
		return nil, err
	}
	spy := &cancelSpy{Broker: p}
	actions := &halt.Actions{}
	actions.Register("", func(ctx context.Context, broker string) halt.Result {
		return env.g.Flatten(ctx, spy, broker, gate.FlattenOptions{Settle: time.Millisecond})
	})
	w := &halt.Watcher{Root: env.root, Brokers: []string{"paper"}, Actions: actions, Poll: time.Second}
	states := w.Subscribe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.Run(ctx)
	wait := func(halted bool) error {
		timeout := time.After(10 * time.Second)
		for {
			select {
			case s := <-states:
				if s.Halted == halted {
					return nil
				}
			case <-timeout:
				return fmt.Errorf("the watcher did not report halted=%v", halted)
			}
		}
	}
	if err := wait(false); err != nil {
		return nil, err
	}
	low, one := money.MustParse("1"), money.MustParse("1")
	var samples []time.Duration
	for range c.size(10, 100) {
		if _, err := p.PlaceOrder(ctx, live.OrderRequest{Symbol: "AAPL", Side: live.Buy, Type: live.Limit, Quantity: &one, LimitPrice: &low}); err != nil {
			return nil, err
		}
		seen := make(chan time.Time, 1)
		spy.mu.Lock()
		spy.seen = seen
		spy.mu.Unlock()
		start := time.Now()
		if _, err := halt.Trip(env.root, live.HaltSentinel, live.GlobalScope, "bench", "x", start); err != nil {
			return nil, err
		}
		select {
		case at := <-seen:
			samples = append(samples, at.Sub(start))
		case <-time.After(5 * time.Second):
			return nil, fmt.Errorf("no cancel within 5 s of HALT")
		}
		if err := wait(true); err != nil {
			return nil, err
		}
		halt.Clear(env.root, live.HaltSentinel, live.GlobalScope)
		if err := wait(false); err != nil {
			return nil, err
		}
	}
	return []Figure{{Name: "HALT → first cancel, p99", Value: pct(samples, 0.99) / 1000, Unit: "ms", Note: fmt.Sprintf("%d trips", len(samples))}}, nil
}

func haltToFlat(c config) ([]Figure, error) {
	var best time.Duration
	runs := c.size(1, 3)
	for i := range runs {
		took, err := flattenOnce(c, i)
		if err != nil {
			return nil, err
		}
		if best == 0 || took < best {
			best = took
		}
	}
	return []Figure{{Name: "HALT → verified FLAT, 1,000 orders, 100 positions", Value: float64(best.Microseconds()) / 1000, Unit: "ms",
		Note: fmt.Sprintf("best of %d", runs)}}, nil
}

func flattenOnce(c config, run int) (time.Duration, error) {
	env, err := newGateEnv(c, fmt.Sprintf("halt-flat-%d", run), "paper")
	if err != nil {
		return 0, err
	}
	defer env.db.Close()
	var syms []paper.SymbolSpec
	for i := range 100 {
		syms = append(syms, paper.SymbolSpec{Symbol: fmt.Sprintf("S%03d", i), Start: money.MustParse("100"), Vol: 0.2, SpreadBps: 4})
	}
	p, err := newPaper("paper", syms)
	if err != nil {
		return 0, err
	}
	ctx := context.Background()
	one, low := money.MustParse("1"), money.MustParse("1")
	for i := range 100 {
		if _, err := p.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: fmt.Sprintf("pos%d", i), Symbol: syms[i].Symbol, Side: live.Buy,
			Type: live.Market, Quantity: &one}); err != nil {
			return 0, err
		}
	}
	for i := range 1000 {
		if _, err := p.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: fmt.Sprintf("rest%d", i), Symbol: syms[i%100].Symbol, Side: live.Buy,
			Type: live.Limit, Quantity: &one, LimitPrice: &low}); err != nil {
			return 0, err
		}
	}
	start := time.Now()
	if _, err := halt.Trip(env.root, live.HaltSentinel, live.GlobalScope, "bench", "flatten", start); err != nil {
		return 0, err
	}
	rep := env.g.Flatten(ctx, p, "paper", gate.FlattenOptions{ClosePositions: true, Actor: live.Operator("bench", "bench"), Why: "bench"})
	took := time.Since(start)
	if !rep.Flat() {
		return 0, fmt.Errorf("not flat: %d orders, %d positions left, errors %v", len(rep.OpenOrders), len(rep.Positions), rep.Errors)
	}
	return took, nil
}
