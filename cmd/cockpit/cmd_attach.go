package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"cockpit/live/redact"
	"cockpit/live/termsafe"
	"cockpit/session"
	"cockpit/session/vibeattach"
	"cockpit/tui"
)

// cmdAttach is `cockpit attach --vibe DIR [--broker B]`: the screen over a Vibe-Trading root,
// read-only but for H (halt) and resume, which write and remove its HALT files.
func (a *App) cmdAttach(args []string) int {
	p, fs := a.preamble("attach")
	dir := fs.String("vibe", "", "the Vibe-Trading runtime root to attach to (the directory holding live/, e.g. ~/.vibe-trading)")
	broker := fs.String("broker", "", "the broker under DIR/live/ (default: the only one with a mandate or a day counter)")
	noMouse := fs.Bool("no-mouse", false, "the screen ignores the mouse")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	if strings.TrimSpace(*dir) == "" {
		return a.usageErr(fs, "--vibe DIR is required")
	}
	root, key, err := vibeattach.Detect(*dir, *broker)
	if err != nil {
		return a.failf("attach: %v", err)
	}
	out, ok := a.Stdout.(*os.File)
	if !ok || !term.IsTerminal(out.Fd()) {
		return a.failf("attach: the screen needs a terminal (%s, broker %s is a Vibe-Trading root)", root.Dir(), key)
	}
	log, closeLog := a.attachLog(*p.home)
	defer closeLog()
	by := strings.Replace(session.OperatorName(), "cli", "cockpit-tui", 1)
	be := vibeattach.New(vibeattach.Options{Root: root, Broker: key, Now: a.Now, By: by, Log: log})
	model, err := tui.New(tui.Options{Backend: be, Now: a.Now, Getenv: a.Getenv, NoMouse: *noMouse})
	if err != nil {
		return a.failf("attach: %v", err)
	}
	model.Note(fmt.Sprintf("attached to the Vibe-Trading root %s (broker %s), read-only: H halts, resume clears the halt", root.Dir(), key))
	model.Note(vibeattach.ChainNote)
	log.Info("attached to a Vibe-Trading root", "root", root.Dir(), "broker", key)
	p2 := tea.NewProgram(model, tea.WithContext(context.Background()), tea.WithOutput(out), tea.WithFPS(tui.FPS))
	_, runErr := p2.Run()
	msg, err := be.OnQuit(context.Background(), model.QuitChoice())
	if err != nil {
		return a.failf("attach: the halt on quit failed: %v", err)
	}
	if msg != "" {
		fmt.Fprintln(a.Stdout, termsafe.Lines(msg))
	}
	if runErr != nil && runErr != tea.ErrProgramKilled {
		fmt.Fprintf(a.Stderr, "cockpit: the screen stopped: %s\n", redact.Secrets(runErr.Error()))
		return exitFailure
	}
	return exitOK
}

// attachLog logs to the cockpit root's cockpit.log when that root exists; the attached
// Vibe-Trading root is never written to but for its HALT files.
func (a *App) attachLog(home string) (*slog.Logger, func()) {
	root, err := a.root(home)
	if err == nil {
		if fi, err := os.Stat(root.Dir()); err == nil && fi.IsDir() {
			return session.OpenLog(root)
		}
	}
	return slog.New(slog.NewJSONHandler(io.Discard, nil)), func() {}
}
