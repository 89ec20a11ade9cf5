package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"cockpit/config"
	"cockpit/engine"
	"cockpit/internal/strictmode"
	"cockpit/live"
	"cockpit/session"
	"cockpit/sshserve"
	"cockpit/tui"
)

// The SSH server's files under the runtime root.
const (
	sshDir            = "ssh"
	sshHostKeyFile    = "host_ed25519"
	sshAuthorizedKeys = "authorized_keys"
)

// cmdServeSSH serves the cockpit screen over SSH: one program per connection, public keys
// with a role each from <root>/ssh/authorized_keys, every action audited as the key's.
func (a *App) cmdServeSSH(args []string) int {
	p, fs := a.preamble("serve-ssh")
	listen := fs.String("listen", "127.0.0.1:2222", "the address to serve on (loopback unless --allow-remote)")
	allowRemote := fs.Bool("allow-remote", false, "allow a --listen address that is not loopback")
	idle := fs.Duration("idle-timeout", 0, "close a session with no keypress for this long (default [ssh] idle_timeout, else 15m)")
	agent := fs.String("agent", "", "strategy, replay, llm, plugin or none (default: cockpit.agent in config.toml)")
	liveFlag := fs.Bool("live", false, "allow a broker table with mode = \"live\" (real money); without it such a table is refused")
	maxConns := fs.Int("max-conns", sshserve.DefaultMaxConns, "screens open at once; the next is refused (connections still authenticating may be twice as many)")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	if *idle < 0 {
		return a.usageErr(fs, "--idle-timeout %s: cannot be negative", *idle)
	}
	if *maxConns < 1 {
		return a.usageErr(fs, "--max-conns %d: want at least 1", *maxConns)
	}
	a.allowLive = *liveFlag
	root, code, ok := p.root()
	if !ok {
		return code
	}
	dir := filepath.Join(root.Dir(), sshDir)
	keys := &sshserve.KeyFile{Root: root.Dir(), Path: filepath.Join(dir, sshAuthorizedKeys)}
	ids, err := keys.Load()
	if errors.Is(err, strictmode.ErrUnsafe) {
		return a.failf("serve-ssh: %v", err)
	}
	if err != nil {
		return a.failf("serve-ssh: %v\nEach line of %s is `role=viewer|operator|admin <OpenSSH public key line>`.", err, keys.Path)
	}
	if len(ids) == 0 {
		return a.failf("serve-ssh: %s lists no key: nobody could connect", keys.Path)
	}
	signer, err := sshserve.HostKey(filepath.Join(dir, sshHostKeyFile))
	if err != nil {
		return a.failf("serve-ssh: %v", err)
	}
	ln, err := sshserve.Listen(*listen, *allowRemote)
	if err != nil {
		return a.failf("serve-ssh: %v", err)
	}
	defer ln.Close()
	t, err := a.sshBackend(*p.home, *agent)
	if err != nil {
		return a.failf("serve-ssh: %v", err)
	}
	defer t.close()
	if *idle == 0 {
		*idle = t.cfg.SSH.Idle()
	}
	srv, err := sshserve.New(sshserve.Options{HostKey: signer, Keys: keys, Backend: t.be, Follow: t.follow,
		Screen: t.screen(a), Audit: t.audit, SessionID: t.id, Now: a.Now, IdleTimeout: *idle, MaxConns: *maxConns, Log: t.log})
	if err != nil {
		return a.failf("serve-ssh: %v", err)
	}
	if t.sshRoles != nil { // the owner's metrics count the screens by role
		t.sshRoles(srv.Roles)
	}
	fmt.Fprintf(a.Stderr, "cockpit serve-ssh on %s — host key %s %s\n%d authorized keys in %s; idle sessions close after %s\n",
		ln.Addr(), signer.PublicKey().Type(), gossh.FingerprintSHA256(signer.PublicKey()), len(ids), keys.Path, *idle)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, unlatch := t.until(ctx)
	defer unlatch()
	done := make(chan struct{})
	go func() { defer close(done); t.run(ctx) }()
	serr := make(chan error, 1)
	go func() { serr <- srv.Serve(ln) }()
	why := "interrupted"
	select {
	case <-ctx.Done():
	case err := <-serr:
		why = fmt.Sprintf("the server stopped: %v", err)
	}
	srv.Close()
	<-done
	return t.stop(a, why)
}

// sshTarget is what serve-ssh serves: a backend every connection shares, its engine events,
// the loops to run and how to stop.
type sshTarget struct {
	be     tui.Backend
	follow func(ctx context.Context, send func(engine.Event))
	audit  live.AuditSink
	id     string
	cfg    config.Config
	gen    uint64
	notes  []string
	poll   time.Duration // how often each screen reads its snapshot (0: the screen's default)
	log    *slog.Logger
	run    func(ctx context.Context)
	until  func(ctx context.Context) (context.Context, context.CancelFunc)
	stop   func(a *App, why string) int
	close  func()
	// sshRoles, when set, tells the owning session where to count the screens by role.
	sshRoles func(func() map[string]int)
}

// sshBackend picks what serve-ssh serves. Today it opens the root's session itself as the
// trading process (one session for every connection, the agent as `run --headless` runs it,
// review items answered on the screens unless cockpit.approvals = "none"), refusing when
// another cockpit owns the account. This is the one place to switch to a supervisor backend
// attaching to a root that another process trades.
func (a *App) sshBackend(home, agent string) (*sshTarget, error) {
	s, err := a.openSession(home, session.Options{Agent: agent, Mode: "serve-ssh"})
	if errors.Is(err, session.ErrAccountInUse) {
		return a.sshSupervise(home)
	}
	if err != nil {
		return nil, err
	}
	be := s.Backend()
	rt := s.Runtime()
	return &sshTarget{be: be, follow: be.Follow, audit: rt.Audit, id: s.ID(), cfg: rt.Config, gen: s.Bus().Generation(),
		notes: s.Notes(), log: rt.Log, run: func(ctx context.Context) { s.Run(ctx) }, until: s.UntilLatched,
		stop: func(a *App, why string) int {
			if h, ok := s.Latched(); ok {
				why = h.Message()
			}
			rep, halted := s.Quit("cockpit serve-ssh stopped: " + why)
			rt.Log.Info("serve-ssh stopped", "why", why, "halted", halted, "flatten", rep.Summary())
			if halted {
				fmt.Fprintf(a.Stderr, "HALT %s — %s\n", s.Key(), rep.Summary())
			}
			if h, ok := s.Latched(); ok {
				fmt.Fprintf(a.Stderr, "cockpit: %s\n", h.Message())
				return exitFailure
			}
			return exitOK
		},
		close: s.Close, sshRoles: s.SetSSHSessions}, nil
}

// screen builds one connection's screen over its guarded backend, as `cockpit run` would.
func (t *sshTarget) screen(a *App) func(be tui.Backend) (*tui.Model, error) {
	return func(be tui.Backend) (*tui.Model, error) {
		m, err := tui.New(tui.Options{Backend: be, Now: a.Now, Theme: t.cfg.TUI.Theme, Keys: t.cfg.TUI.Keys,
			Getenv: func(string) string { return "" }, Generation: t.gen, NoMouse: !t.cfg.TUI.Mouse, Remote: true, Poll: t.poll})
		if err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
		for _, n := range t.notes {
			m.Note(n)
		}
		return m, nil
	}
}
