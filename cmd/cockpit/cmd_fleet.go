package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	"cockpit/config"
	"cockpit/fleet"
	"cockpit/live"
	"cockpit/session"
)

// cmdFleet is `cockpit fleet serve|status`.
func (a *App) cmdFleet(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(a.Stderr, "usage: cockpit fleet serve [--listen ADDR] [--for D] [--no-auth] | status [--broker B]")
		return exitUsage
	}
	switch args[0] {
	case "serve":
		return a.fleetServe(args[1:])
	case "status":
		return a.fleetStatus(args[1:])
	}
	fmt.Fprintf(a.Stderr, "cockpit fleet: unknown subcommand %q (serve, status)\n", args[0])
	return exitUsage
}

// fleetServe runs an embedded JetStream server with its data under <root>/fleet, on loopback
// unless told otherwise, until interrupted (or --for ends).
func (a *App) fleetServe(args []string) int {
	p, fs := a.preamble("fleet serve")
	listen := fs.String("listen", "", "host:port to listen on (default fleet.listen, else 127.0.0.1:4222)")
	forD := fs.Duration("for", 0, "stop after this long (0: until interrupted)")
	noAuth := fs.Bool("no-auth", false, "accept clients without a token (loopback only; tests and demos)")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	root, code, ok := p.root()
	if !ok {
		return code
	}
	cfg, err := config.Load(root)
	if err != nil {
		return a.failf("%v", err)
	}
	addr := cfg.Fleet.ListenAddr()
	if *listen != "" {
		addr = *listen
	}
	host, portText, err := net.SplitHostPort(addr)
	port, perr := strconv.Atoi(portText)
	if err != nil || perr != nil || port < 0 || port > 65535 {
		return a.usageErr(fs, "--listen %q: want host:port", addr)
	}
	token, tokenFrom := "", ""
	switch {
	case cfg.Fleet.TokenEnv != "":
		if token = a.Getenv(cfg.Fleet.TokenEnv); token == "" {
			return a.failf("config: fleet.token_env = %q: the variable is empty", cfg.Fleet.TokenEnv)
		}
		tokenFrom = "$" + cfg.Fleet.TokenEnv
	case *noAuth:
		if !isLoopback(host) {
			return a.usageErr(fs, "--no-auth is for loopback only (--listen %q)", addr)
		}
	default:
		if token, err = fleet.EnsureToken(root.Dir()); err != nil {
			return a.failf("fleet token: %v", err)
		}
		tokenFrom = filepath.Join(root.Dir(), fleet.TokenFile)
	}
	dir := filepath.Join(root.Dir(), "fleet")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return a.failf("%v", err)
	}
	ns, err := fleet.Serve(fleet.ServeOptions{Host: host, Port: port, StoreDir: dir, Token: token, Name: cfg.Fleet.HostName()})
	if err != nil {
		return a.failf("%v", err)
	}
	defer ns.Shutdown()
	fmt.Fprintf(a.Stdout, "Fleet server (NATS JetStream) on %s\nData: %s\n", ns.ClientURL(), dir)
	if tokenFrom != "" {
		fmt.Fprintf(a.Stdout, "Clients need the token in %s (this root's cockpits read the file; other roots: copy it, 0600, or set fleet.token_env).\n", tokenFrom)
	} else {
		fmt.Fprintln(a.Stdout, "Warning: --no-auth: any local process may change the fleet's halts and day count.")
	}
	if !isLoopback(host) {
		fmt.Fprintln(a.Stdout, "Warning: not on loopback — give it TLS before other hosts join.")
	}
	fmt.Fprintf(a.Stdout, "Join with [fleet] url = %q in each host's config.toml. Ctrl-C stops it.\n", ns.ClientURL())
	ctx, stop := signal.NotifyContext(fleetServeContext(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *forD > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *forD)
		defer cancel()
	}
	<-ctx.Done()
	return exitOK
}

// fleetServeContext is what `fleet serve` runs until, besides a signal (tests end it).
var fleetServeContext = context.Background

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// dialFleet connects to the configured fleet and waits up to wait for it to answer; nil
// (after a message) when none is configured or it does not answer.
func (a *App) dialFleet(root live.Root, wait time.Duration) (*fleet.Fleet, config.Config, error) {
	cfg, err := config.Load(root)
	if err != nil {
		return nil, cfg, err
	}
	if !cfg.Fleet.Enabled() {
		return nil, cfg, fmt.Errorf("no fleet is configured ([fleet] url in %s)", config.Path(root))
	}
	log, done := a.logger(root)
	defer done()
	f, err := session.DialFleet(root, cfg, a.Getenv, log)
	if err != nil {
		return nil, cfg, err
	}
	for deadline := time.Now().Add(wait); !f.Connected() && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if !f.Connected() {
		f.Close()
		return nil, cfg, fmt.Errorf("the fleet at %s does not answer", cfg.Fleet.URL)
	}
	return f, cfg, nil
}

// fleetStatus prints the fleet: this host's link, every host's heartbeat, the halts and
// today's count for the broker.
func (a *App) fleetStatus(args []string) int {
	p, _ := a.preamble("fleet status")
	p.withBroker("", "today's fleet count for this broker (default cockpit.broker)")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	root, code, ok := p.root()
	if !ok {
		return code
	}
	f, cfg, err := a.dialFleet(root, 3*time.Second)
	if err != nil {
		return a.failf("%v", err)
	}
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	now := a.Now()
	printLine(a.Stdout, "Fleet %s — this host: %s", cfg.Fleet.URL, f.Host())
	hosts, err := f.Hosts(ctx)
	if err != nil {
		return a.failf("hosts: %v", err)
	}
	fmt.Fprintf(a.Stdout, "\n%-16s %-12s %-10s %6s  %-18s %s\n", "HOST", "STATE", "BROKER", "ORDERS", "LAST EVENT", "LAG")
	for _, h := range hosts {
		fmt.Fprintf(a.Stdout, "%-16s %-12s %-10s %6d  %-18s %s\n", cell(h.Host), cell(h.State), cell(h.Broker), h.Orders, cell(h.LastEvent),
			h.Lag(now).Round(time.Millisecond))
	}
	if len(hosts) == 0 {
		fmt.Fprintln(a.Stdout, "(no host has a live heartbeat)")
	}
	halts, err := f.Halts(ctx)
	if err != nil {
		return a.failf("halts: %v", err)
	}
	fmt.Fprintln(a.Stdout)
	n := 0
	for k, v := range halts {
		if v.Halted {
			n++
			printLine(a.Stdout, "HALTED %s since %s by %s@%s: %s", k, v.At.UTC().Format(time.RFC3339), v.By, v.Host, v.Reason)
		}
	}
	if n == 0 {
		fmt.Fprintln(a.Stdout, "No fleet halt.")
	}
	key := p.key
	if key == "" {
		key = cfg.Cockpit.Broker
	}
	days := &fleet.Days{F: f}
	count, err := days.Count(ctx, key, live.UTCDay(now))
	if err != nil {
		return a.failf("day count: %v", err)
	}
	fmt.Fprintf(a.Stdout, "Orders today (%s, fleet-wide): %d\n", key, count)
	return exitOK
}

// publishFleetHalt tells the fleet about a HALT set or cleared from the command line, when a
// fleet is configured; the local sentinel already stands either way.
func (a *App) publishFleetHalt(root live.Root, scope live.Scope, halted bool, reason string) {
	if cfg, err := config.Load(root); err != nil || !cfg.Fleet.Enabled() {
		return
	}
	f, _, err := a.dialFleet(root, 2*time.Second)
	if err == nil {
		defer f.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		err = f.PublishHalt(ctx, scope, fleet.HaltValue{Halted: halted, By: operatorName(), Reason: reason, At: a.Now()})
	}
	if err != nil {
		fmt.Fprintf(a.Stderr, "cockpit: warning: the fleet was not told (%v); it stands here, and a running cockpit on this host publishes it when the fleet is back\n", err)
		return
	}
	fmt.Fprintln(a.Stdout, "Fleet: published to every host.")
}

// publishFleetResume tells the fleet about a resume, unless the halt cleared was this host's
// own local-only one (by cockpit or the watcher): that one never reached the fleet, and a
// resume published for it would clear other hosts' halts.
func (a *App) publishFleetResume(root live.Root, scope live.Scope, author, reason string) {
	if slices.Contains(fleet.LocalAuthors, author) {
		if cfg, err := config.Load(root); err == nil && cfg.Fleet.Enabled() {
			printLine(a.Stdout, "Fleet: not published — that halt was this host's own (by %s); the fleet's halts stand.", author)
		}
		return
	}
	a.publishFleetHalt(root, scope, false, reason)
}
