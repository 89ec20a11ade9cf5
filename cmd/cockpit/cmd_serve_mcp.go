package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cockpit/engine/mcpserve"
	"cockpit/session"
)

// cmdServeMCP serves the session's guarded tools to an outside agent over MCP: the session is
// opened as `run --headless --agent none` would (same root, broker, gate and review), and every
// call goes through the engine under the client's identity. Stdout carries only MCP frames;
// the log goes to cockpit.log.
func (a *App) cmdServeMCP(args []string) int {
	p, fs := a.preamble("serve-mcp")
	approvals := fs.String("approvals", "none", "none (review items are denied no_approver) or cli (answer with `cockpit approvals` from another terminal)")
	liveFlag := fs.Bool("live", false, "allow a broker table with mode = \"live\" (real money); without it such a table is refused")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	if *approvals != "none" && *approvals != "cli" {
		return a.usageErr(fs, "--approvals %q: want none or cli", *approvals)
	}
	a.allowLive = *liveFlag
	s, err := a.openSession(*p.home, session.Options{Agent: "none", Approvals: *approvals, Mode: "headless"})
	if err != nil {
		return a.failf("%v", err)
	}
	defer s.Close()
	srv, err := mcpserve.New(s.Engine())
	if err != nil {
		return a.failf("%v", err)
	}
	log := s.Runtime().Log
	for _, n := range s.Notes() {
		log.Info("serve-mcp: " + n)
	}
	fmt.Fprintf(a.Stderr, "cockpit serve-mcp on %s (approvals: %s, on quit: %s) — session %s, %d tools over stdio\n",
		s.Key(), *approvals, s.OnQuit(), s.ID(), len(s.Engine().Tools.All()))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, unlatch := s.UntilLatched(ctx)
	defer unlatch()
	loops, endLoops := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); s.Run(loops) }()
	t := &mcp.IOTransport{Reader: io.NopCloser(a.Stdin), Writer: nopWriteCloser{a.Stdout}}
	serr := srv.Run(ctx, t)
	endLoops()
	<-done
	why := "the client went away"
	switch {
	case serr != nil && !errors.Is(serr, io.EOF) && ctx.Err() == nil:
		why = "transport failed: " + serr.Error()
		log.Error("serve-mcp transport", "err", serr)
	case ctx.Err() != nil:
		why = "interrupted"
	}
	if h, ok := s.Latched(); ok {
		why = h.Message()
	}
	rep, halted := s.Quit("cockpit serve-mcp stopped: " + why)
	log.Info("serve-mcp stopped", "why", why, "halted", halted, "flatten", rep.Summary())
	if h, ok := s.Latched(); ok {
		fmt.Fprintf(a.Stderr, "cockpit: %s\n", h.Message())
		return exitFailure
	}
	return exitOK
}
