package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"cockpit/config"
	"cockpit/fleet"
	"cockpit/live"
	"cockpit/session"
)

// cmdFleet is `cockpit fleet serve|add-host|status`.
func (a *App) cmdFleet(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(a.Stderr, "usage: cockpit fleet serve [--listen ADDR [--allow-remote --tls-cert F --tls-key F]] [--for D] | add-host NAME [--out FILE] | status [--broker B]")
		return exitUsage
	}
	switch args[0] {
	case "serve":
		return a.fleetServe(args[1:])
	case "add-host":
		return a.fleetAddHost(args[1:])
	case "status":
		return a.fleetStatus(args[1:])
	}
	fmt.Fprintf(a.Stderr, "cockpit fleet: unknown subcommand %q (serve, add-host, status)\n", args[0])
	return exitUsage
}

// dialFleet connects to the configured fleet and waits up to wait for it to answer; nil
// (after a message) when none is configured or it does not answer. What the fleet refuses
// while the verb runs (a lowered count, a resume nobody known signed) is said on stderr.
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
	f, err := session.DialFleetAlerting(root, cfg, a.Getenv, log, func(x fleet.Alert) {
		fmt.Fprintf(a.Stderr, "cockpit: fleet alert (%s): %s\n", x.Kind, printable(x.Text, 400))
	})
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
	for _, k := range slices.Sorted(maps.Keys(halts)) {
		v := halts[k]
		if !v.Halted {
			continue
		}
		n++
		signed := "signed"
		if err := f.VerifyHalt(ctx, k, v); err != nil {
			signed = "UNVERIFIED: " + err.Error()
		}
		fmt.Fprintf(a.Stdout, "HALTED %s since %s by %s@%s (%s): %s\n", k, v.At.UTC().Format(time.RFC3339),
			printable(v.By, 40), printable(v.Host, 40), signed, printable(v.Reason, 120))
	}
	if n == 0 {
		fmt.Fprintln(a.Stdout, "No fleet halt.")
	}
	if peers, err := f.Peers(ctx); err != nil {
		fmt.Fprintf(a.Stdout, "Peers: not checked (%v)\n", err)
	} else {
		fmt.Fprintln(a.Stdout, "Peers (signed by the fleet's account):")
		for _, p := range peers {
			fmt.Fprintf(a.Stdout, "  %-16s %s\n", cell(p.Host), cell(p.Key))
		}
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
