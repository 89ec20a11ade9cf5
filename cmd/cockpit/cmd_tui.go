package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"cockpit/live/redact"
	"cockpit/session"
	"cockpit/tui"
)

// runScreen runs the cockpit screen over a session: the engine, the broker and the agent in
// the background, the human in front. Nothing is written to stdout or stderr while the screen
// is up; logs go to cockpit.log. On quit the operator's choice decides the resting orders
// (on_quit applies when the program ends another way, e.g. SIGTERM).
func (a *App) runScreen(home string, o session.Options, noMouse bool) int {
	out, ok := a.Stdout.(*os.File)
	if !ok || !term.IsTerminal(out.Fd()) {
		return a.failf("the screen needs a terminal; use `cockpit run --headless` to run without one")
	}
	o.Mode = "tui"
	s, err := a.openSession(home, o)
	if errors.Is(err, session.ErrAccountInUse) { // another process trades it: supervise (issue 14)
		return a.superviseScreen(home, out, noMouse)
	}
	if err != nil {
		return a.failf("%v", err)
	}
	defer s.Close()
	be := s.Backend()
	cfg := s.Runtime().Config
	model, err := tui.New(tui.Options{Backend: be, Now: a.Now, Theme: cfg.TUI.Theme, Keys: cfg.TUI.Keys, Getenv: a.Getenv,
		Generation: s.Bus().Generation(), NoMouse: noMouse || !cfg.TUI.Mouse})
	if err != nil {
		return a.failf("config: %v", err)
	}
	for _, n := range s.Notes() {
		model.Note(n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := tea.NewProgram(model, tea.WithContext(ctx), tea.WithOutput(out), tea.WithFPS(tui.FPS))
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); be.Follow(ctx, func(m any) { p.Send(m) }) }()
	go func() { defer wg.Done(); s.Run(ctx) }()
	_, runErr := p.Run()
	cancel()
	wg.Wait()
	switch model.QuitChoice() {
	case tui.QuitHalt:
		s.SetOnQuit("halt")
	case tui.QuitLeave:
		s.SetOnQuit("leave")
	}
	haltedWhy, endedHalted := s.Halted() // before on_quit writes its own HALT
	rep, halted := s.Quit("cockpit quit from the screen")
	if runErr != nil && runErr != tea.ErrProgramKilled {
		s.Runtime().Log.Error("screen stopped", "err", runErr)
		fmt.Fprintf(a.Stderr, "cockpit: the screen stopped: %s\n", redact.Secrets(runErr.Error()))
	}
	if halted {
		fmt.Fprintf(a.Stdout, "HALT %s — %s\nResume with `cockpit resume --broker %s --reason …`.\n", s.Key(), cell(rep.Summary()), s.Key())
	} else if open, err := s.Broker().OpenOrders(context.Background()); err == nil {
		fmt.Fprintf(a.Stdout, "Left %d resting orders at %s.\n", len(open), s.Key())
	}
	return a.endedHalted(haltedWhy, endedHalted) // DV15's audit_unavailable among them
}
