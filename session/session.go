package session

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"cockpit/readmodel"

	"cockpit/config"
	"cockpit/engine"
	"cockpit/engine/agents/llm"
	"cockpit/engine/agents/replay"
	"cockpit/engine/agents/strategy"
	"cockpit/engine/tools"
	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
	"cockpit/live/mandatefile"
	"cockpit/live/money"
	"cockpit/live/paper"
	"cockpit/metrics"
	"cockpit/store"
)

// Options shape one run of the engine.
type Options struct {
	Env
	Root      live.Root // the runtime root (config, store, sentinels, mandates)
	Agent     string    // strategy | replay | llm | none ("" = config)
	Script    string    // replay script ("" = config)
	Plugin    string    // the plugin agent's .wasm module ("" = agents.plugin.file)
	Approvals string    // tui | cli | none: who answers review items ("" = cockpit.approvals)
	Mode      string    // tui | headless
}

// Session is a running cockpit: the runtime, the broker, the gate, the engine, the halt
// watcher and the agent, wired together.
type Session struct {
	rt       *Runtime
	id       string
	key      string
	broker   live.Broker
	paper    *paper.Broker
	gate     *gate.Gate
	eng      *engine.Engine
	watcher  *halt.Watcher
	agent    engine.Agent // nil: no agent
	interval time.Duration
	onQuit   string
	voided   int64
	notes    []string // start-up notes for the operator (the screen's info alerts, the headless console)
	closers  []func()
	// flattenMu serialises flattens: the watcher's halt action and an operator's flatten
	// never cancel and close the same orders at once.
	flattenMu sync.Mutex
	// halts tracks the running halt actions: close waits for them before the store closes.
	halts sync.WaitGroup
	ctx   context.Context // the session's context: halt actions run on it

	latch     *halt.Latch     // the one halt latch: the watcher's (resumable) and the audit's (held, DV15)
	sentries  *sentinelAudit  // audits sentinel files changed from outside
	integrity store.Integrity // the store's start-up check of its chain
	pages     pageCheck       // the store's start-up check of its pages, beside the screen (session_audit.go)

	fleet *fleetLink // nil without a fleet

	reader      *readmodel.Reader // the account's read model: every window of this session reads it
	backendOnce sync.Once
	backend     *Backend // the screen's backend, made on first use

	owner ownerState // the owner role: heartbeat, live state, supervisors' commands (owner.go)

	metrics     *metrics.Metrics // nil unless [metrics] listen is set (metrics.go)
	metricsAddr string           // where /metrics is served
}

// Open starts everything but the loops: the paper mandate is ensured, review items
// left by an earlier run are voided, the order journal is reconciled, the day's LLM
// spend is restored from the audit trail, and the halt watcher is proven (or has latched).
func Open(o Options) (*Session, error) {
	rt, err := OpenRuntime(o.Env, o.Root)
	if err != nil {
		return nil, err
	}
	s := &Session{rt: rt, id: live.RandomID("sess")}
	s.owner.kind = ownerKind(o.Mode)
	s.closers = append(s.closers, rt.Close)
	s.integrity = rt.DB.CheckChain(context.Background()) // DV15: before anything is written; the pages beside (guardAudit)
	fail := func(err error) (*Session, error) {
		s.Close()
		return nil, s.notStarted(err)
	}
	cfg := rt.Config
	if o.Approvals == "" {
		o.Approvals = cfg.Cockpit.Approvals
	}
	key, err := live.NormalizeBroker(cfg.Cockpit.Broker)
	if err != nil {
		return fail(fmt.Errorf("config: cockpit.broker = %q: %v", cfg.Cockpit.Broker, err))
	}
	s.key = key
	if cfg.Metrics.Enabled() {
		s.metrics = metrics.New()
	}
	// Own the account before anything shared changes: a second process stops here.
	release, err := rt.OwnAccount(key)
	if err != nil {
		return fail(err)
	}
	s.closers = append(s.closers, release)
	if err := halt.EnsureReserve(rt.Root); err != nil { // a halt on a full disk renames it into place
		rt.Log.Error("reserve HALT file not made", "err", err)
		s.notes = append(s.notes, fmt.Sprintf("%s%v: a halt tripped while the disk is full may not survive a restart", readmodel.WarnNote, err))
	}
	if live.IsPaperBroker(key) {
		if res, err := EnsurePaperMandate(rt); err != nil {
			return fail(err)
		} else if res != nil {
			s.notes = append(s.notes, fmt.Sprintf("committed the default paper mandate %s (until %s)", res.MandateID, res.ExpiresAt))
		}
	}
	if c := mandatefile.Read(context.Background(), rt.Root, rt.DB, key); c.State == live.MandateTampered || c.State == live.MandateUnverified {
		s.notes = append(s.notes, fmt.Sprintf("%sthe %s mandate is %s", readmodel.WarnNote, key, c.Describe())) // DV13: said at start, on screen too
	}
	s.onQuit = cfg.Cockpit.OnQuit
	if s.onQuit == "" {
		s.onQuit = "halt"
		if !rt.IsLive(key) {
			s.onQuit = "leave"
		}
	}
	ctx := context.Background()
	s.ctx = ctx
	mode := "live"
	if !rt.IsLive(key) {
		mode = "paper"
	}
	agentName := o.Agent
	if agentName == "" {
		agentName = cfg.Cockpit.Agent
	}
	if err := rt.DB.StartSession(ctx, store.Session{ID: s.id, Mode: mode, Broker: key, Agent: agentName}); err != nil {
		return fail(err)
	}
	s.closers = append(s.closers, func() { rt.DB.EndSession(context.Background(), s.id) })
	if s.voided, err = rt.DB.VoidPending(ctx, "cockpit restarted: the agent that asked is gone"); err != nil {
		return fail(err)
	} else if s.voided > 0 {
		rt.Audit.Record(ctx, live.AuditRecord{Time: rt.Now(), Actor: live.System("review", s.id), Kind: live.KindApprovalVoided,
			Outcome: "voided", Broker: key, Intent: fmt.Sprintf("voided %d review items left pending by an earlier run", s.voided)})
	}
	b, _, err := rt.OpenOwnedBroker(key, func() {})
	if err != nil {
		return fail(err)
	}
	s.broker = b
	s.paper, _ = b.(*paper.Broker)
	if err := s.openFleet(); err != nil { // before the gate: the audit sink also feeds the fleet
		return fail(err)
	}
	s.latch, s.sentries = &halt.Latch{}, &sentinelAudit{s: s}
	s.watcher = &halt.Watcher{Root: rt.Root, Brokers: []string{key}, Now: rt.Now, Actions: &halt.Actions{},
		Latch: s.latch, OnSentinel: s.onSentinel, OnLatch: s.sentries.latched, Start: s.startHaltAction}
	// No order before the watcher is proven (or latched); an audit failure halts (DV15).
	// No order before the store's page check has passed either (pagecheck.go).
	s.pages.done = make(chan struct{})
	gopts := GateOptions{Latch: s.latch, WatcherReady: s.watcher.Ready(), StoreChecked: s.pages.done, OnHalt: s.onAuditHalt}
	s.lossOptions(&gopts) // a crossed loss limit halts the broker and pauses the agent
	if s.fleet != nil {
		gopts.Days = s.fleet.days
		if s.metrics != nil {
			gopts.Days = timedDays{Days: s.fleet.days, m: s.metrics}
		}
	}
	s.gate = rt.Gate(gopts)
	s.reader = s.newReader()
	// Fills go into the trail from here to Close (after the fleet's sink is in place); one that
	// cannot be recorded halts like any audit failure (DV15).
	s.closers = append(s.closers, rt.FollowFills(b, key, s.id, s.gate.TripAuditHalt))
	reg := &engine.Registry{}
	var bars engine.BarSource
	if s.paper != nil {
		bars = engine.PaperBars(s.paper.Market().History, rt.Now)
	} else if bs, ok := b.(interface { // a real broker's own bars (Alpaca's market data)
		Bars(context.Context, string, int, time.Duration) ([]money.Amount, error)
	}); ok {
		bars = bs.Bars
	} else {
		bars = mcpBars(b)
	}
	engine.BrokerTools(reg, b, bars)
	registerMCPTools(rt, reg, b, key)
	if _, err := tools.Register(reg, cfg, rt.Root.Dir(), rt.DB.Path()); err != nil {
		return fail(fmt.Errorf("config: tools: %w", err))
	}
	pol, err := cfg.Policy.Engine()
	if err != nil {
		return fail(fmt.Errorf("config: policy: %w", err))
	}
	costs := &engine.CostBudget{Prices: cfg.Agents.LLM.EnginePrices()}
	now := rt.Now().UTC()
	if _, err := engine.RestoreSpend(ctx, rt.DB.EachEvent, costs, time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)); err != nil {
		return fail(fmt.Errorf("restore today's LLM spend: %w", err))
	}
	s.eng = &engine.Engine{Root: rt.Root, Gate: s.gate, Broker: b, BrokerKey: key, Policy: pol, Tools: reg,
		Reviews: store.Reviews{DB: rt.DB}, Approver: o.Approvals == "tui" || o.Approvals == "cli", Bus: engine.NewBus(rt.Now),
		Audit: rt.Audit, Now: rt.Now, Log: rt.Log, Costs: costs, Session: s.id}
	s.guardAudit() // DV15: an audit failure, or a store that fails its start-up check, halts
	// [notify]: before anything runs, so no review or halt is missed
	if err := s.openNotify(); err != nil {
		return fail(err)
	}
	if err := s.openMetrics(); err != nil { // [metrics]: its sink and the gate's hook before anything runs
		return fail(err)
	}
	act := gate.HaltAction(s.gate, b, func(p gate.FlattenProgress) { s.eng.Bus.Publish(engine.Event{Kind: engine.EvFlatten, Flatten: &p}) })
	s.watcher.Actions.Register(key, func(ctx context.Context, broker string) halt.Result {
		s.flattenMu.Lock()
		defer s.flattenMu.Unlock()
		rep := act(ctx, broker)
		s.eng.Bus.Publish(engine.Event{Kind: engine.EvFlatten, Report: &rep})
		return rep
	})
	// The watcher is proven (or has latched) before anything can trade: no agent, MCP client
	// or screen gets an order in before it sees changes.
	s.closers = append(s.closers, func() { s.watcher.Close() })
	s.watcher.Prove()
	if err := s.buildAgent(agentName, o.Script, o.Plugin); err != nil {
		return fail(err)
	}
	return s, nil
}

// buildAgent makes the configured agent.
func (s *Session) buildAgent(name, script, plugin string) error {
	cfg := s.rt.Config.Agents
	switch name {
	case "none":
		return nil
	case "strategy":
		a, err := strategy.New(strategy.Config{Seed: cfg.Strategy.Seed, Symbols: cfg.Strategy.Symbols, Notional: cfg.Strategy.Notional})
		s.agent, s.interval = a, cfg.Strategy.Interval.Duration
		// The demo keeps trading within the mandate while a review waits: the review holds
		// its order, not the agent (issue 29 §5).
		s.eng.DetachReviews = true
		return err
	case "replay":
		if script == "" {
			script = cfg.Replay.Script
		}
		if script == "" {
			return errors.New("the replay agent needs a script: --script FILE or agents.replay.script")
		}
		steps, err := replay.Load(script)
		if err != nil {
			return err
		}
		s.agent, s.interval = &replay.Agent{Steps: steps, Speed: cfg.Replay.Speed}, 200*time.Millisecond
		return nil
	case "llm":
		if _, ok := cfg.LLM.Prices[cfg.LLM.Model]; !ok {
			return fmt.Errorf("config: agents.llm.prices.%s is not set: cockpit will not send requests it cannot price; add to %s (USD per million tokens, from your provider's price list):\n[agents.llm.prices.%s]\ninput_per_mtok = \"…\"\noutput_per_mtok = \"…\"",
				cfg.LLM.Model, config.Path(s.rt.Root), cfg.LLM.Model)
		}
		key := s.rt.Getenv(cfg.LLM.APIKeyEnv)
		if key == "" {
			return fmt.Errorf("the LLM agent needs an API key in $%s (agents.llm.api_key_env)", cfg.LLM.APIKeyEnv)
		}
		m, _ := mandatefile.Load(s.rt.Root, s.key)
		a, err := llm.New(llm.Config{BaseURL: cfg.LLM.BaseURL, Model: cfg.LLM.Model, APIKey: key, Timeout: cfg.LLM.Timeout.Duration,
			MaxOutput: cfg.LLM.MaxOutputTokens, Mandate: llm.Summary(m), Now: s.rt.Now})
		s.agent, s.interval = a, cfg.LLM.Interval.Duration
		return err
	case "plugin":
		return s.buildPlugin(plugin)
	}
	return fmt.Errorf("unknown agent %q (strategy, replay, llm, plugin or none)", name)
}

// Run starts the loops (the halt watcher, the engine following halts and the broker, the
// paper market, the agent; the agent once the watcher has proven it sees changes or has set
// the latch) and returns the agent's turns when ctx ends or the agent has
// nothing left to do.
func (s *Session) Run(ctx context.Context) int {
	var wg sync.WaitGroup
	loops, stop := context.WithCancel(ctx)
	defer func() {
		stop()
		wg.Wait()
	}()
	start := func(fn func()) {
		wg.Add(1)
		go func() { defer wg.Done(); fn() }()
	}
	states := s.watcher.Subscribe()
	start(func() {
		if err := s.watcher.Run(loops); err != nil && loops.Err() == nil {
			s.rt.Log.Error("halt watcher stopped", "err", err)
		}
	})
	start(func() { s.eng.FollowHalts(loops, states) })
	start(func() { s.eng.FollowBroker(loops) })
	start(func() { s.watchLoss(loops) })
	start(func() { s.runOwner(loops) })
	s.fleet.run(loops, start, s)
	if s.paper != nil {
		start(func() { s.paper.Run(loops, 500*time.Millisecond) })
	}
	if s.agent == nil {
		<-ctx.Done()
		return 0
	}
	select { // Open proved the watcher: the agent's first turn never comes before that
	case <-s.watcher.Ready():
	case <-ctx.Done():
		return 0
	}
	select { // nor before the store's pages are checked (its orders would wait for it)
	case <-s.pages.finished():
	case <-ctx.Done():
		return 0
	}
	turns, _ := s.eng.Run(ctx, s.agent, s.interval)
	return turns
}

// Quit applies on_quit: "halt" trips the broker's HALT and cancels its resting orders
// (closing positions too when the mandate says flatten_on_halt); "leave" leaves them.
func (s *Session) Quit(why string) (gate.FlattenReport, bool) {
	if s.onQuit != "halt" {
		return gate.FlattenReport{}, false
	}
	now := s.rt.Now()
	s.sentries.expect(s.rt.Root.SentinelPath(live.HaltSentinel, s.key), true)
	rec := live.AuditRecord{Time: now, Actor: live.System("on_quit", s.id), Kind: live.KindHaltTripped,
		Outcome: live.OutcomeAccepted, Broker: s.key, Intent: "HALT " + s.key + ": " + why}
	_, err := halt.Trip(s.rt.Root, live.HaltSentinel, live.Scope{Broker: s.key}, "cockpit", why, now)
	switch {
	case !halt.InForce(err): // no HALT file: the record says so, and the flatten below still runs
		s.rt.Log.Error("on_quit halt failed", "err", err)
		rec.Outcome, rec.Intent = live.OutcomeError, "HALT "+s.key+" not written: "+why
		rec.Detail = jsonv.ObjectOf("error", err.Error())
	case err != nil:
		s.rt.Log.Warn("on_quit halt in force but not known to be on disk", "err", err)
	}
	s.rt.Audit.Record(context.Background(), rec)
	m := mandatefile.Verified(context.Background(), s.rt.Root, s.gate.Mandates, s.key)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s.flattenMu.Lock()
	defer s.flattenMu.Unlock()
	return s.gate.Flatten(ctx, s.broker, s.key, gate.FlattenOptions{ClosePositions: gate.FlattenAllowed(nil, m),
		Actor: live.System("on_quit", s.id), Why: why}), true
}

// startHaltAction runs a halt action in the session's wait group, on the session's context
// (a quit does not cut a running flatten short; close waits for it).
func (s *Session) startHaltAction(action func(ctx context.Context)) {
	s.halts.Add(1)
	go func() {
		defer s.halts.Done()
		action(s.ctx)
	}()
}

// Close waits for running halt actions, then ends the session row, releases the account and
// closes the store and the log.
func (s *Session) Close() {
	s.halts.Wait()
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}
