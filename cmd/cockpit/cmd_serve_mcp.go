package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cockpit/engine/mcpserve"
	"cockpit/engine/safety"
	"cockpit/live"
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
	httpAddr := fs.String("http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:8765) instead of stdio; the bearer token is <root>/"+mcpserve.TokenFile)
	allowRemote := fs.Bool("allow-remote", false, "with --http: allow an address that is not loopback")
	allowedHosts := fs.String("allowed-hosts", "", "with --http: the Host/Origin allow-list, comma-separated (default 127.0.0.1, ::1, localhost)")
	maxConns := fs.Int("max-conns", mcpserve.DefaultMaxConns, "with --http: connections open at once; the next is refused 503")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	if *maxConns < 1 {
		return a.usageErr(fs, "--max-conns %d: want at least 1", *maxConns)
	}
	if *approvals != "none" && *approvals != "cli" {
		return a.usageErr(fs, "--approvals %q: want none or cli", *approvals)
	}
	a.allowLive = *liveFlag
	s, err := a.openSession(*p.home, session.Options{Agent: "none", Approvals: *approvals, Mode: "serve-mcp"})
	if err != nil {
		return a.failf("%v", err)
	}
	defer s.Close()
	srv, err := mcpserve.New(s.Engine())
	if err != nil {
		return a.failf("%v", err)
	}
	s.SetClients(srv.Clients) // supervisors show them as agents
	log := s.Runtime().Log
	for _, n := range s.Notes() {
		log.Info("serve-mcp: " + n)
	}
	var serve func(ctx context.Context) error
	if *httpAddr == "" {
		serve = func(ctx context.Context) error {
			return srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(a.Stdin), Writer: nopWriteCloser{a.Stdout}})
		}
	} else {
		tok, err := mcpserve.EnsureToken(s.Runtime().Root.Dir())
		if err != nil {
			return a.failf("serve-mcp: bearer token: %v", err)
		}
		h, err := srv.Handler(mcpserve.HTTPOptions{Token: tok, AllowedHosts: safety.ParseAllowedHosts(*allowedHosts), Log: log})
		if err != nil {
			return a.failf("%v", err)
		}
		ln, err := mcpserve.Listen(*httpAddr, *allowRemote)
		if err != nil {
			return a.failf("serve-mcp: %v", err)
		}
		serve = func(ctx context.Context) error {
			return mcpserve.ServeHTTP(ctx, ln, h, mcpserve.ServeOptions{MaxConns: *maxConns, Log: log})
		}
		fmt.Fprintf(a.Stderr, "cockpit serve-mcp: streamable HTTP on http://%s (Authorization: Bearer <%s>)\n",
			ln.Addr(), filepath.Join(s.Runtime().Root.Dir(), mcpserve.TokenFile))
	}
	over := "stdio"
	if *httpAddr != "" {
		over = "HTTP"
	}
	fmt.Fprintf(a.Stderr, "cockpit serve-mcp on %s (approvals: %s, on quit: %s) — session %s, %d tools over %s\n",
		s.Key(), *approvals, s.OnQuit(), s.ID(), len(s.Engine().Tools.All()), over)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, unlatch := s.UntilLatched(ctx)
	defer unlatch()
	loops, endLoops := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); s.Run(loops) }()
	serr := serve(ctx)
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

// initToken creates serve-mcp's bearer token (0600) in the root when it is missing.
func (a *App) initToken(root live.Root) error {
	path := filepath.Join(root.Dir(), mcpserve.TokenFile)
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if _, err := mcpserve.EnsureToken(root.Dir()); err != nil {
		return fmt.Errorf("serve-mcp token: %w", err)
	}
	fmt.Fprintf(a.Stdout, "Wrote %s (the bearer token of `cockpit serve-mcp --http`, mode 0600).\n", path)
	return nil
}
