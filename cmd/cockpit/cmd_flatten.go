package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"

	"cockpit/config"
	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/mandatefile"
	"cockpit/live/redact"
	"cockpit/session"
)

// cmdFlatten runs the halt action from a terminal: it halts the broker (so nothing new is
// placed), cancels every resting order, closes positions when asked (or when the mandate says
// so), re-reads the broker and prints the verified result. It stays halted afterwards.
func (a *App) cmdFlatten(args []string) int {
	p, fs := a.preamble("flatten")
	p.withBroker(live.PaperBroker, "broker to flatten")
	closePos := fs.Bool("close-positions", false, "also close every position (default: the mandate's flatten_on_halt)")
	reason := fs.String("reason", "operator flatten", "why (recorded)")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	key := p.key
	rt, code, ok := p.open("")
	if !ok {
		return code
	}
	defer rt.close()
	if !halt.IsHalted(rt.Root, key) {
		_, err := halt.Trip(rt.Root, live.HaltSentinel, live.BrokerScope(key), operatorName(), *reason, a.Now())
		if !halt.InForce(err) {
			return a.failf("could not halt %s before flattening: %v", key, err)
		}
		rt.record(sentinelRecord(live.KindHaltTripped, live.OutcomeBlocked, live.HaltSentinel, live.BrokerScope(key), *reason))
		fmt.Fprintf(a.Stdout, "1. Halted %s (nothing new will be placed).\n", key)
		if err != nil {
			fmt.Fprintf(a.Stderr, "warning: %s\n", notDurable(err))
		}
	} else {
		fmt.Fprintf(a.Stdout, "1. %s is already halted.\n", key)
	}
	var explicit *bool
	if *closePos {
		explicit = closePos
	}
	m := mandatefile.Verified(context.Background(), rt.Root, rt.DB, key) // DV13: only a consented flatten_on_halt counts
	// issue 14: a live owner (a screen, run --headless, serve-mcp) runs it
	if code, done := a.flattenViaOwner(rt, key, gate.FlattenAllowed(explicit, m)); done {
		return code
	}
	b, release, err := rt.openBroker(key)
	if errors.Is(err, session.ErrAccountInUse) { // the owner sees the halt and runs its own halt action
		return a.failf("%v: it saw the halt and cancels on its own (flatten_on_halt decides positions); check its screen or `cockpit status`", err)
	}
	if err != nil {
		return a.failf("%v", err)
	}
	defer release()
	defer rt.followFills(b, key)()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep := rt.gate(nil).Flatten(ctx, b, key, gate.FlattenOptions{
		ClosePositions: gate.FlattenAllowed(explicit, m), Actor: live.Operator(operatorName(), "cli"), Why: *reason,
		Progress: a.printProgress})
	fmt.Fprintln(a.Stdout, "Result:", cell(rep.Summary()))
	if !rep.Complete() { // positions kept on purpose (cancel-only) are not a failure
		return exitFailure
	}
	return exitOK
}

func (a *App) printProgress(p gate.FlattenProgress) {
	switch p.Phase {
	case gate.PhaseReadOrders, gate.PhaseReadPositions:
		fmt.Fprintf(a.Stdout, "   %s failed: %s\n", p.Phase, cell(redact.Secrets(p.Err)))
	case gate.PhaseCancel, gate.PhaseClose:
		mark := "✓"
		if !p.OK {
			mark = "✗ " + redact.Secrets(p.Err)
		}
		verb := map[gate.FlattenPhase]string{gate.PhaseCancel: "cancel", gate.PhaseClose: "close"}[p.Phase]
		printLine(a.Stdout, "   %s %d/%d %s %s", verb, p.Done, p.Total, p.Item, mark)
	case gate.PhaseVerify:
		fmt.Fprintln(a.Stdout, "   verifying with the broker…")
	}
}

// cmdInit creates the runtime root: a commented config.toml and, for the paper broker, a
// default paper mandate (a live broker never gets one).
func (a *App) cmdInit(args []string) int {
	p, fs := a.preamble("init")
	kind := fs.String("broker", "", "add a commented [brokers.<kind>] table for a real broker: alpaca or mcp")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	root, code, ok := p.root()
	if !ok {
		return code
	}
	if *kind != "" {
		code := a.initBroker(root, *kind)
		if code == exitOK { // every init path writes serve-mcp's token, not only plain init
			if err := a.initToken(root); err != nil {
				return a.failf("%v", err)
			}
		}
		return code
	}
	wrote, err := config.WriteTemplate(root)
	if err != nil {
		return a.failf("%v", err)
	}
	if wrote {
		fmt.Fprintf(a.Stdout, "Wrote %s (every value is the default; edit it to change them).\n", config.Path(root))
	} else {
		fmt.Fprintf(a.Stdout, "%s already exists — left as it is.\n", config.Path(root))
	}
	if err := a.initToken(root); err != nil {
		return a.failf("%v", err)
	}
	rt, code, ok := p.open("")
	if !ok {
		return code
	}
	defer rt.close()
	// The mandate is the account's shared state: only its owner commits one (issue 10 item 6).
	release, err := rt.OwnAccount(live.PaperBroker)
	if errors.Is(err, session.ErrAccountInUse) {
		fmt.Fprintf(a.Stdout, "A running cockpit owns the paper account: its mandate is left to it.\nRuntime root ready: %s\n", root.Dir())
		return exitOK
	}
	if err != nil {
		return a.failf("%v", err)
	}
	defer release()
	res, err := session.EnsurePaperMandate(rt.Runtime)
	switch {
	case err != nil:
		return a.failf("%v", err)
	case res != nil:
		fmt.Fprintf(a.Stdout, "Committed the default paper mandate %s (until %s).\n", res.MandateID, res.ExpiresAt)
	default:
		fmt.Fprintln(a.Stdout, "The paper broker already has a mandate.")
	}
	fmt.Fprintf(a.Stdout, "Runtime root ready: %s\n", root.Dir())
	return exitOK
}
