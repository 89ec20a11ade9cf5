package engine

import (
	"context"

	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
)

// Finding is one injection-scanner hit in external content.
type Finding struct {
	RuleID   string
	Severity string
	Message  string
	Match    string // the matched text, whitespace-collapsed, at most 120 code points
	Field    string
	Source   string // the tool that read the content
}

// Agent drives one trading session: each turn it calls tools through the turn.
type Agent interface {
	Name() string
	Turn(ctx context.Context, t *Turn) error
}

// Engine runs an agent in-process: every tool call passes Execute, orders pass the gate,
// breaches wait in the review queue, and everything is published on the bus and audited.
type Engine struct {
	Root      live.Root
	Gate      *gate.Gate
	Broker    live.Broker
	BrokerKey string
	Profile   string // policy profile: paper or live
	Policy    Policies
	Tools     *Registry
	Reviews   live.ReviewStore // where breaches wait; nil means no approver
	Approver  bool             // a human is attached (the TUI); without one, Ask becomes Deny
	Bus       *Bus
	Audit     live.AuditSink
	Now       func() time.Time
	Log       *slog.Logger
	Costs     *CostBudget
	Session   string
	// MaxPending bounds the review queue; the next request is denied (default 5).
	MaxPending int
	// DriftBps bounds how far the price may move between approval and execution (default:
	// the mandate's price_collar_bps, else 100).
	DriftBps int64

	Limiter RateLimiter

	// ReviewPoll is how often a waiting review checks the store for a resolution made by
	// another process or a passed deadline (default 1 s; one made here wakes it at once).
	ReviewPoll time.Duration
	// DetachReviews: an order of one of Run's turns that must wait for a human waits in the
	// background; the agent gets review_pending at once and goes on trading within the mandate
	// (the reviewed order is still placed only once approved, through the gate again). Calls
	// outside Run (MCP clients, tests) wait for the answer as before.
	DetachReviews bool

	turns    atomic.Int64
	paused   atomic.Bool
	mu       sync.Mutex
	blocked  map[string]bool    // the session block list (blocklist.go)
	cancel   context.CancelFunc // cancels the running turn on a halt or a cool-down
	running  string             // the limits key of the agent whose turn cancel stops
	started  time.Time
	paces    map[string]*pace // per agent: denied writes in the last minute and the pause (guard.go)
	refusals map[string]priorDenial
	loop     context.Context               // Run's context, while it runs (detached reviews outlive turns, not Run)
	awaiting map[string]context.CancelFunc // review id → the cancel of its background wait
	awaitWG  sync.WaitGroup

	// placing is held (shared) by each call from its gate submission until its decision is on
	// the bus; FollowBroker takes it (exclusively) before it publishes an order update, so a
	// fill never reaches the bus before the ALLOW that placed it.
	placing sync.RWMutex
}

func (e *Engine) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

func (e *Engine) log() *slog.Logger {
	if e.Log != nil {
		return e.Log
	}
	return slog.New(slog.DiscardHandler)
}

// Paused reports whether the agent loop is paused: halted by a sentinel the watcher saw, or by
// the process's halt latch, which the gate and the screen consult too.
func (e *Engine) Paused() bool {
	if e.paused.Load() {
		return true
	}
	if e.Gate == nil {
		return false
	}
	on, _ := e.Gate.HaltLatch().Halted()
	return on
}

// SetHalted pauses the agent loop on a halt (and stops the running turn); it resumes only
// when the halt is gone, which takes an operator's resume.
func (e *Engine) SetHalted(halted bool) {
	was := e.paused.Swap(halted)
	if halted && !was {
		e.mu.Lock()
		if e.cancel != nil {
			e.cancel()
		}
		e.stopAwaiting()
		e.mu.Unlock()
	}
}

// Turn is one agent turn: its identity, whether it read flagged content, and the way to call
// tools.
type Turn struct {
	ID     string
	N      int
	Agent  string
	engine *Engine
	// limits keys the agent's rate limits and denial pacing: the agent's name, or one MCP
	// client session (two clients that introduce themselves alike are still two agents).
	limits  string
	mu      sync.Mutex
	tainted bool
	calls   int
	detach  bool // a review does not hold the turn (Engine.DetachReviews)
}

// Tainted reports whether the turn read external content the scanner flagged.
func (t *Turn) Tainted() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.tainted
}

func (t *Turn) taint() {
	t.mu.Lock()
	t.tainted = true
	t.mu.Unlock()
}

// Note publishes what the agent says (untrusted text, kept short and on one line).
func (t *Turn) Note(text string) {
	t.engine.publish(Event{Kind: EvNote, Agent: t.Agent, Turn: t.N, Message: sanitizeReason(text)})
}

// Engine returns the engine running the turn (agents use it for LLM requests).
func (t *Turn) Engine() *Engine { return t.engine }

// Call runs one tool call through the engine's chokepoint.
func (t *Turn) Call(ctx context.Context, tool string, args map[string]any) Result {
	return t.engine.Execute(ctx, t, tool, argsObject(args))
}

// Tools returns what the agent is offered: every registered tool its policy allows; in
// ReadOnly, write tools are not offered at all.
func (t *Turn) Tools() []*Tool {
	var out []*Tool
	for _, tool := range t.engine.Tools.All() {
		p, err := t.engine.policyFor(t.Agent, tool.Name)
		if err != nil {
			continue
		}
		if ok, _ := p.Allows(tool.Name); !ok {
			continue
		}
		if p.Autonomy == ReadOnly && tool.Effect != EffectRead {
			continue
		}
		out = append(out, tool)
	}
	return out
}

// NewTurn starts a turn for agent (used by Run, and by tests driving the engine directly).
func (e *Engine) NewTurn(agent string) *Turn { return e.NewClientTurn(agent, agent) }

// NewClientTurn starts a turn for agent whose rate limits and denial pacing are client's own
// (one MCP client session); an empty client means the agent's name.
func (e *Engine) NewClientTurn(agent, client string) *Turn {
	if client == "" {
		client = agent
	}
	n := int(e.turns.Add(1))
	return &Turn{ID: fmt.Sprintf("%s-t%d", e.Session, n), N: n, Agent: agent, engine: e, limits: client}
}

// policyFor resolves the effective policy of an agent calling a tool.
func (e *Engine) policyFor(agent, tool string) (Policy, error) {
	profile := e.Profile
	if profile == "" {
		profile = "live"
		if live.IsPaperBroker(e.BrokerKey) {
			profile = "paper"
		}
	}
	return Meet(Layers(e.Policy, profile, agent, tool)...), nil
}

// Finisher is an agent with an end (a replay script).
type Finisher interface{ Done() bool }

// Run plays the agent's turns every interval until ctx ends or a Finisher is done; a halt
// pauses the loop (and stops the running turn), and it resumes when the halt is cleared. It
// reports how many turns ran.
func (e *Engine) Run(ctx context.Context, agent Agent, interval time.Duration) (int, error) {
	e.started = e.now()
	e.mu.Lock()
	e.loop = ctx
	e.mu.Unlock()
	defer e.awaitWG.Wait() // the reviews left waiting end with the loop (voided) and are audited
	t := time.NewTicker(interval)
	defer t.Stop()
	turns := 0
	for {
		if !e.Paused() && e.coolingDown(agent.Name()) <= 0 {
			e.runTurn(ctx, agent)
			turns++
		}
		if f, ok := agent.(Finisher); ok && f.Done() {
			return turns, nil
		}
		select {
		case <-ctx.Done():
			return turns, nil
		case <-t.C:
		}
	}
}

func (e *Engine) runTurn(ctx context.Context, agent Agent) {
	turnCtx, cancel := context.WithCancel(ctx)
	e.mu.Lock()
	e.cancel, e.running = cancel, agent.Name()
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		e.cancel, e.running = nil, ""
		e.mu.Unlock()
		cancel()
	}()
	turn := e.NewTurn(agent.Name())
	turn.detach = e.DetachReviews
	e.publish(Event{Kind: EvTurnStarted, Agent: turn.Agent, Turn: turn.N})
	err := agent.Turn(turnCtx, turn)
	msg := fmt.Sprintf("%d tool calls", turn.calls)
	switch {
	case err != nil && turnCtx.Err() == nil:
		e.publish(Event{Kind: EvError, Agent: turn.Agent, Turn: turn.N, Message: err.Error()})
		e.log().Error("agent turn failed", "agent", turn.Agent, "turn", turn.N, "err", err)
	case e.Paused():
		msg += " (stopped: halted)"
	}
	e.publish(Event{Kind: EvTurnEnded, Agent: turn.Agent, Turn: turn.N, Message: msg})
}

func (e *Engine) publish(ev Event) {
	if e.Bus != nil {
		e.Bus.Publish(ev)
	}
}

// FollowBroker publishes the broker's order updates until ctx ends.
func (e *Engine) FollowBroker(ctx context.Context) {
	for u := range e.Broker.Subscribe(ctx) {
		u := u
		e.placing.Lock() // wait for the decisions of the orders in flight
		e.placing.Unlock()
		e.publish(Event{Kind: EvOrderUpdate, Order: &u})
	}
}

// FollowHalts pauses and resumes the agent from the watcher's states and publishes them.
func (e *Engine) FollowHalts(ctx context.Context, states <-chan halt.State) {
	for {
		select {
		case <-ctx.Done():
			return
		case s, ok := <-states:
			if !ok {
				return
			}
			if s.Broker == e.BrokerKey {
				_, latched := e.latched() // the audit latch outlives a cleared sentinel
				e.SetHalted(s.Halted || latched)
			}
			e.publish(Event{Kind: EvHalt, Halt: &s})
		}
	}
}
