package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"cockpit/engine"
	"cockpit/live"
	"cockpit/live/counter"
	"cockpit/live/gate"
	"cockpit/live/money"
	"cockpit/session"
)

// cmdRun runs the engine, the broker and the agent. With --headless it prints one line per
// engine event and a summary at the end; SIGINT (or --for) stops it without asking anything,
// and on_quit decides what happens to resting orders. A run that ends HALTED exits 1.
func (a *App) cmdRun(args []string) int {
	p, fs := a.preamble("run")
	headless := fs.Bool("headless", false, "no screen: one log line per event on stdout")
	agent := fs.String("agent", "", "strategy, replay, llm, plugin or none (default: cockpit.agent in config.toml)")
	script := fs.String("script", "", "the replay agent's JSONL script (default: agents.replay.script)")
	plugin := fs.String("plugin", "", "the plugin agent's .wasm module, its sha256 pinned in agents.plugin (default: agents.plugin.file)")
	dur := fs.Duration("for", 0, "stop after this long, e.g. 30s (default: until interrupted)")
	noMouse := fs.Bool("no-mouse", false, "the screen ignores the mouse (default: [tui] mouse in config.toml)")
	approvals := fs.String("approvals", "none", "headless: none (review items are denied no_approver) or cli (answer with `cockpit approvals` from another terminal)")
	liveFlag := fs.Bool("live", false, "allow a broker table with mode = \"live\" (real money); without it such a table is refused")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	a.allowLive = *liveFlag
	if !*headless {
		return a.runScreen(*p.home, session.Options{Agent: *agent, Script: *script, Plugin: *plugin}, *noMouse)
	}
	if *approvals != "none" && *approvals != "cli" {
		return a.usageErr(fs, "--approvals %q: want none or cli", *approvals)
	}
	if *dur < 0 {
		return a.usageErr(fs, "--for %s: cannot be negative", *dur)
	}
	s, err := a.openSession(*p.home, session.Options{Agent: *agent, Script: *script, Plugin: *plugin, Approvals: *approvals, Mode: "headless"})
	if err != nil {
		return a.failf("%v", err)
	}
	defer s.Close()
	ctx, stop := signal.NotifyContext(a.context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *dur > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *dur)
		defer cancel()
	}
	tally := &tally{reviews: map[string]int{}, denials: map[string]int{}}
	printing, quiet := context.WithCancel(context.Background())
	done := make(chan struct{})
	events := s.Bus().Subscribe(printing, 4096)
	fmt.Fprintf(a.Stdout, "cockpit %s on %s (%s agent, approvals: %s, on quit: %s) — session %s\n",
		"headless", s.Key(), s.AgentName(), *approvals, s.OnQuit(), s.ID())
	for _, n := range s.Notes() {
		fmt.Fprintln(a.Stdout, cell(n))
	}
	if s.Voided() > 0 {
		fmt.Fprintf(a.Stdout, "voided %d review items an earlier run left pending\n", s.Voided())
	}
	go func() { // after the header and the notes: the events queue until then
		defer close(done)
		for ev := range events { // closed when printing ends, after what was queued
			tally.add(ev)
			fmt.Fprintf(a.Stdout, "%s %s\n", ev.Time.UTC().Format("15:04:05.000"), ev.Text())
		}
	}()
	started := a.Now()
	ctx, unlatch := s.UntilLatched(ctx)
	defer unlatch()
	turns := s.Run(ctx)
	why := "stopped"
	switch {
	case ctx.Err() == nil:
		why = "the agent finished"
	case *dur > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded):
		// The deadline's own error, not a clock reading: the timer started before `started`.
		why = fmt.Sprintf("--for %s elapsed", *dur)
	default:
		why = "interrupted"
	}
	if h, ok := s.Latched(); ok {
		why = h.Message()
	}
	haltedWhy, endedHalted := s.Halted() // before on_quit writes its own HALT
	rep, halted := s.Quit("cockpit stopped: " + why)
	time.Sleep(50 * time.Millisecond) // let the last broker updates reach the bus
	quiet()
	<-done
	a.summary(s, tally, turns, why, a.Now().Sub(started), rep, halted)
	return a.endedHalted(haltedWhy, endedHalted)
}

// endedHalted is a run's exit code: exitFailure, with the reason on stderr, when trading was
// HALTED as it stopped (audit_unavailable, the halt watcher's latch, or a HALT file): an
// operator has to look and resume before the next run trades.
func (a *App) endedHalted(why string, halted bool) int {
	if !halted {
		return exitOK
	}
	fmt.Fprintf(a.Stderr, "cockpit: the run ended %s\n", cell(why))
	return exitFailure
}

// openSession opens a session on the runtime root --home (else the environment) names.
func (a *App) openSession(home string, o session.Options) (*session.Session, error) {
	root, err := a.root(home)
	if err != nil {
		return nil, err
	}
	o.Env, o.Root = a.env(), root
	return session.Open(o)
}

// tally counts what the engine did, from its events.
type tally struct {
	calls, ok, cancelled, orders, fills, findings, errors int
	reviews                                               map[string]int
	denials                                               map[string]int
	llm                                                   money.Amount
}

func (t *tally) add(ev engine.Event) {
	switch ev.Kind {
	case engine.EvToolCall:
		t.calls++
		switch r := ev.Result; {
		case r == nil:
		case r.OK():
			t.ok++
		case r.Code == live.ReasonCancelled: // cut off by the stop, not refused
			t.cancelled++
		case r.Code == engine.ReasonReviewPending: // waits for a human: counted with the reviews
		case r.Decision == live.DecisionDeny || r.Decision == live.DecisionAsk:
			t.denials[string(r.Code)]++
		}
	case engine.EvDecision:
		if d := ev.Decision; d != nil && d.Verdict == live.Allow && d.Outcome == live.OutcomeAccepted && d.Order != nil {
			t.orders++
		}
	case engine.EvOrderUpdate:
		if ev.Order != nil && ev.Order.FillQty.Sign() > 0 {
			t.fills++
		}
	case engine.EvReviewCreated:
		t.reviews["created"]++
	case engine.EvReviewResolved:
		if ev.Review != nil {
			t.reviews[string(ev.Review.State)]++
		}
	case engine.EvFinding:
		t.findings++
	case engine.EvError:
		t.errors++
	case engine.EvLLM:
		t.llm = t.llm.Add(ev.Cost)
	}
}

func (a *App) summary(s *session.Session, t *tally, turns int, why string, took time.Duration, rep gate.FlattenReport, halted bool) {
	w, rt, key, broker := a.Stdout, s.Runtime(), s.Key(), s.Broker()
	fmt.Fprintf(w, "\n── summary (%s after %s) ──\n", why, took.Round(100*time.Millisecond))
	cancelled := ""
	if t.cancelled > 0 {
		cancelled = fmt.Sprintf(", %d cancelled", t.cancelled)
	}
	fmt.Fprintf(w, "turns %d · tool calls %d (%d ok%s) · orders placed %d · fills %d · errors %d\n",
		turns, t.calls, t.ok, cancelled, t.orders, t.fills, t.errors)
	if len(t.denials) > 0 {
		fmt.Fprintf(w, "refused: %s\n", counts(t.denials))
	}
	if len(t.reviews) > 0 {
		fmt.Fprintf(w, "reviews: %s\n", counts(t.reviews))
	}
	if t.findings > 0 {
		fmt.Fprintf(w, "scanner findings: %d\n", t.findings)
	}
	if t.llm.Sign() > 0 {
		fmt.Fprintf(w, "LLM spend: $%s\n", t.llm.Round(4))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if n, den := counter.DailyCount(ctx, rt.Root, rt.DB, key, a.Now()); den == nil {
		fmt.Fprintf(w, "orders today: %d\n", n)
	} else {
		fmt.Fprintf(w, "orders today: unknown (%s)\n", cell(den.Error()))
	}
	if pos, err := broker.Positions(ctx); err == nil {
		gross := money.Zero
		for _, p := range pos {
			gross = gross.Add(p.MarketValue.Abs())
		}
		fmt.Fprintf(w, "positions: %d (gross $%s)\n", len(pos), gross.Round(2))
	}
	if acct, err := broker.Account(ctx); err == nil {
		fmt.Fprintf(w, "cash $%s · equity $%s\n", acct.Cash.Round(2), acct.Equity.Round(2))
	}
	switch {
	case halted:
		fmt.Fprintf(w, "on quit: HALT %s — %s (resume with `cockpit resume --broker %s --reason …`)\n", s.Key(), cell(rep.Summary()), key)
	default:
		if open, err := broker.OpenOrders(ctx); err == nil {
			noun := "orders"
			if len(open) == 1 {
				noun = "order"
			}
			fmt.Fprintf(w, "on quit: left %d resting %s (on_quit = leave)\n", len(open), noun)
		}
	}
	if st, err := rt.DB.Stats(ctx); err == nil {
		fmt.Fprintf(w, "audit: %d events in %s — check with `cockpit audit verify`\n", st.Events, rt.DB.Path())
	}
}

func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, " · ")
}
