package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	tea "charm.land/bubbletea/v2"

	"cockpit/live/gate"
	"cockpit/live/mandatefile"
	"cockpit/live/redact"
	"cockpit/session"
	"cockpit/session/supervise"
	"cockpit/tui"
)

// superviseScreen runs the screen over a root whose account another process owns (issue 14):
// fed by the store, its actions sent to the owner. Nothing is written to stdout or stderr
// while it is up; quitting leaves the owner running.
func (a *App) superviseScreen(home string, out *os.File, noMouse bool) int {
	root, err := a.root(home)
	if err != nil {
		return a.failf("%v", err)
	}
	env := a.env()
	env.Stderr = io.Discard // a flatten with the owner gone reconciles while the screen is up (audited, not printed)
	srt, err := session.OpenRuntime(env, root)
	if err != nil {
		return a.failf("%v", err)
	}
	rt := &runtime{Runtime: srt, app: a}
	defer rt.close()
	sup, err := supervise.Open(rt.Runtime, rt.Config.Cockpit.Broker)
	if err != nil {
		return a.failf("config: cockpit.broker = %q: %v", rt.Config.Cockpit.Broker, err)
	}
	defer sup.Close()
	cfg := rt.Config
	model, err := tui.New(tui.Options{Backend: sup, Now: a.Now, Theme: cfg.TUI.Theme, Keys: cfg.TUI.Keys, Getenv: a.Getenv,
		NoMouse: noMouse || !cfg.TUI.Mouse, Poll: supervisePoll})
	if err != nil {
		return a.failf("config: %v", err)
	}
	model.Note("another process owns the " + sup.Key() + " account: this screen supervises it (halts here, cancel/close/flatten run in the owner)")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, runErr := tea.NewProgram(model, tea.WithContext(ctx), tea.WithOutput(out), tea.WithFPS(tui.FPS)).Run()
	if runErr != nil && runErr != tea.ErrProgramKilled {
		rt.Log.Error("screen stopped", "err", runErr)
		fmt.Fprintf(a.Stderr, "cockpit: the screen stopped: %s\n", redact.Secrets(runErr.Error()))
		return exitFailure
	}
	if model.QuitChoice() == tui.QuitHalt { // h on quit: as the owner's own screen would, halt and cancel
		m := mandatefile.Verified(context.Background(), rt.Root, rt.DB, sup.Key())
		rep := sup.FlattenWith(context.Background(), gate.FlattenAllowed(nil, m), nil)
		fmt.Fprintf(a.Stdout, "HALT %s — %s\nResume with `cockpit resume --broker %s --reason …`.\n", sup.Key(), cell(rep.Summary()), sup.Key())
		return exitOK
	}
	fmt.Fprintf(a.Stdout, "Detached from %s; its owner keeps running.\n", sup.Key())
	return exitOK
}

// supervisePoll is how often the supervising screen reads its snapshot: with no engine events
// to follow, it polls 4× as often as the owner's screen (a snapshot costs ~0.15 ms: the store,
// the sentinels and the owner's live state, no broker).
const supervisePoll = 250 * time.Millisecond

// flattenViaOwner sends `cockpit flatten` to the process that owns key's account when one is
// alive, prints the owner's progress and verified result and returns the exit code; done is
// false when no live owner answers (the verb then flattens itself).
func (a *App) flattenViaOwner(rt *runtime, key string, closePositions bool) (code int, done bool) {
	sup, err := supervise.Open(rt.Runtime, key)
	if err != nil {
		return a.failf("%v", err), true
	}
	defer sup.Close()
	o, alive, err := sup.Owner(context.Background())
	if err != nil || !alive {
		return 0, false
	}
	fmt.Fprintf(a.Stdout, "2. %s pid %d owns %s (session %s): it flattens.\n", o.Kind, o.PID, key, o.SessionID)
	ctx, stop := signal.NotifyContext(session.WithOperator(context.Background(), operatorName()), os.Interrupt)
	defer stop()
	rep := sup.FlattenWith(ctx, closePositions, a.printProgress)
	fmt.Fprintln(a.Stdout, "Result:", cell(rep.Summary()))
	if !rep.Complete() { // positions kept on purpose (cancel-only) are not a failure
		return exitFailure, true
	}
	return exitOK, true
}
