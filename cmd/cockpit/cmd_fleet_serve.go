package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"cockpit/config"
	"cockpit/fleet"
	"cockpit/live"
	"cockpit/live/atomicfile"
)

// fleetServe runs an embedded JetStream server with its data under <root>/fleet, on loopback
// unless told otherwise, until interrupted (or --for ends). It trusts only credentials the
// root's fleet authority (<root>/fleet.authority) signed: this root's own host gets its
// creds at the first start, every other host through `fleet add-host`.
func (a *App) fleetServe(args []string) int {
	p, fs := a.preamble("fleet serve")
	listen := fs.String("listen", "", "host:port to listen on (default fleet.listen, else 127.0.0.1:4222)")
	forD := fs.Duration("for", 0, "stop after this long (0: until interrupted)")
	noAuth := fs.Bool("no-auth", false, "accept any client, with no identities (loopback only; a demo: resumes from other hosts are then ignored)")
	remote := fs.Bool("allow-remote", false, "listen on an address other hosts can reach (needs --tls-cert and --tls-key)")
	cert := fs.String("tls-cert", "", "the server's TLS certificate (PEM)")
	key := fs.String("tls-key", "", "the server's TLS key (PEM)")
	ca := fs.String("tls-ca", "", "a CA (PEM) whose client certificates are required as well")
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
	if !isLoopback(host) && !*remote {
		return a.usageErr(fs, "--listen %q is not a loopback address: other hosts could reach it; add --allow-remote (with --tls-cert and --tls-key) to mean it", addr)
	}
	if *noAuth && !isLoopback(host) {
		return a.usageErr(fs, "--no-auth is for loopback only (--listen %q)", addr)
	}
	tlsConf, err := serverTLS(*cert, *key, *ca)
	if err != nil {
		return a.failf("%v", err)
	}
	if !isLoopback(host) && tlsConf == nil {
		return a.usageErr(fs, "--allow-remote needs TLS: give --tls-cert and --tls-key (the fleet's credentials and halts must not cross the network in clear)")
	}
	o := fleet.ServeOptions{Host: host, Port: port, StoreDir: filepath.Join(root.Dir(), "fleet"), TLS: tlsConf,
		Name: cfg.Fleet.HostName(), Replicas: 1,
		Audit: fleet.AuditRetention{MaxAge: cfg.Fleet.AuditMaxAge.Duration, MaxBytes: cfg.Fleet.AuditMaxBytes}}
	if err := os.MkdirAll(o.StoreDir, 0o700); err != nil {
		return a.failf("%v", err)
	}
	var own string
	if !*noAuth {
		if o.Auth, own, err = a.fleetAuthority(root, cfg); err != nil {
			return a.failf("%v", err)
		}
		if o.Peers, err = fleet.ReadHosts(filepath.Join(root.Dir(), fleet.HostsFile)); err != nil {
			return a.failf("fleet hosts: %v", err)
		}
	}
	ns, err := fleet.Serve(o)
	if err != nil {
		return a.failf("%v", err)
	}
	defer ns.Shutdown()
	a.printServe(ns, o, own)
	ctx, stop := signal.NotifyContext(fleetServeContext(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *forD > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *forD)
		defer cancel()
	}
	if o.Auth != nil {
		go a.publishNewHosts(ctx, ns, o, filepath.Join(root.Dir(), fleet.HostsFile))
	}
	<-ctx.Done()
	return exitOK
}

// fleetServeContext is what `fleet serve` runs until, besides a signal (tests end it).
var fleetServeContext = context.Background

// fleetAuthority loads (or makes) the root's fleet authority and gives this root's own host
// its credentials (<root>/fleet.creds) when it has none; it returns what it did for them.
func (a *App) fleetAuthority(root live.Root, cfg config.Config) (*fleet.Authority, string, error) {
	auth, err := fleet.EnsureAuthority(filepath.Join(root.Dir(), fleet.AuthorityFile))
	if err != nil {
		return nil, "", fmt.Errorf("fleet authority: %w", err)
	}
	credsPath := filepath.Join(root.Dir(), fleet.CredsFile)
	if _, err := os.Stat(credsPath); err == nil {
		return auth, "This root's credentials: " + credsPath, nil
	}
	name := cfg.Fleet.HostName()
	c, _, err := fleet.AddHost(filepath.Join(root.Dir(), fleet.HostsFile), auth, name, a.Now())
	if err != nil {
		return auth, fmt.Sprintf("This root has no credentials (%s): %v", credsPath, err), nil
	}
	if err := atomicfile.WriteFile(credsPath, c.Data, 0o600); err != nil {
		return nil, "", fmt.Errorf("fleet creds: %w", err)
	}
	return auth, fmt.Sprintf("This root's credentials (host %s): %s", name, credsPath), nil
}

// printServe says where the server is, which hosts it knows and how another joins.
func (a *App) printServe(ns *server.Server, o fleet.ServeOptions, own string) {
	fmt.Fprintf(a.Stdout, "Fleet server (NATS JetStream) on %s\nData: %s\n", ns.ClientURL(), o.StoreDir)
	if o.Auth == nil {
		fmt.Fprintln(a.Stdout, "Warning: --no-auth: any local process may change the fleet's halts and day count, and no host has an identity.")
	} else {
		fmt.Fprintf(a.Stdout, "Fleet account (the hosts' trust anchor): %s\n%s\n", o.Auth.AccountKey(), own)
		fmt.Fprintln(a.Stdout, "Hosts and their public keys (each signs its halts, resumes, counts and audit):")
		for _, p := range o.Peers {
			fmt.Fprintf(a.Stdout, "  %-16s %s\n", cell(p.Host), cell(p.Key))
		}
		if len(o.Peers) == 0 {
			fmt.Fprintln(a.Stdout, "  (none yet)")
		}
		fmt.Fprintln(a.Stdout, "Add a host: cockpit fleet add-host NAME, then install its creds as <its root>/fleet.creds (0600).")
	}
	if o.TLS != nil {
		fmt.Fprintln(a.Stdout, "TLS: on (hosts use a tls:// url and ca = the CA of this certificate).")
	}
	fmt.Fprintf(a.Stdout, "Join with [fleet] url = %q in each host's config.toml. Ctrl-C stops it.\n", ns.ClientURL())
}

// publishNewHosts puts the hosts `fleet add-host` adds while the server runs into the peer
// bucket (the host file is read again when it changes).
func (a *App) publishNewHosts(ctx context.Context, ns *server.Server, o fleet.ServeOptions, path string) {
	var last time.Time
	if fi, err := os.Stat(path); err == nil {
		last = fi.ModTime()
	}
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fi, err := os.Stat(path)
		if err != nil || fi.ModTime().Equal(last) {
			continue
		}
		peers, err := fleet.ReadHosts(path)
		if err == nil {
			err = fleet.Provision(ns, o.Auth, o.Replicas, peers, o.Audit)
		}
		if err != nil {
			fmt.Fprintf(a.Stderr, "cockpit: fleet serve: the new hosts are not published yet: %v\n", err)
			continue
		}
		last = fi.ModTime()
	}
}

// serverTLS loads the server's certificate (nil, nil without one); with ca, clients must
// present a certificate it signed.
func serverTLS(cert, key, ca string) (*tls.Config, error) {
	if cert == "" && key == "" {
		if ca != "" {
			return nil, errors.New("--tls-ca needs --tls-cert and --tls-key")
		}
		return nil, nil
	}
	if cert == "" || key == "" {
		return nil, errors.New("--tls-cert and --tls-key go together")
	}
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert %s / --tls-key %s: %w", cert, key, err)
	}
	c := &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("--tls-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--tls-ca %s: no PEM certificate in it", ca)
		}
		c.ClientCAs, c.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return c, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// fleetAddHost issues a host's credentials with the root's authority (the root `fleet
// serve` runs on) and lists it as a peer; a running server publishes it within a second.
func (a *App) fleetAddHost(args []string) int {
	p, fs := a.preamble("fleet add-host")
	out := fs.String("out", "", "where to write the creds file (default <root>/fleet-hosts/NAME.creds)")
	if code, ok := p.parse(args, 1); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return a.usageErr(fs, "want the host's name: cockpit fleet add-host NAME")
	}
	name := fs.Arg(0)
	if err := fleet.ValidHostName(name); err != nil {
		return a.usageErr(fs, "%v", err)
	}
	root, code, ok := p.root()
	if !ok {
		return code
	}
	auth, err := fleet.EnsureAuthority(filepath.Join(root.Dir(), fleet.AuthorityFile))
	if err != nil {
		return a.failf("fleet authority: %v", err)
	}
	path := *out
	if path == "" {
		path = filepath.Join(root.Dir(), "fleet-hosts", name+".creds")
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return a.failf("%v", err)
		}
	}
	if _, err := os.Lstat(path); err == nil {
		return a.failf("%s exists: not overwritten (choose another --out)", path)
	}
	c, peer, err := fleet.AddHost(filepath.Join(root.Dir(), fleet.HostsFile), auth, name, a.Now())
	if err != nil {
		return a.failf("%v", err)
	}
	if err := atomicfile.WriteFile(path, c.Data, 0o600); err != nil {
		return a.failf("the creds of %s were issued but not written (%v): remove %s from %s and add it again",
			name, err, name, filepath.Join(root.Dir(), fleet.HostsFile))
	}
	fmt.Fprintf(a.Stdout, "Host %s: key %s\nCreds: %s (0600)\n", name, peer.Key, path)
	fmt.Fprintf(a.Stdout, "On %s: install -m 600 %s <its root>/%s (or [fleet] creds = that path); its host name is %s.\n",
		name, filepath.Base(path), fleet.CredsFile, name)
	fmt.Fprintln(a.Stdout, "A running `cockpit fleet serve` on this root lists it within a second; otherwise at its next start.")
	return exitOK
}
