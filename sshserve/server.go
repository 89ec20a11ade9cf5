// Package sshserve serves the cockpit screen over SSH (`cockpit serve-ssh`): one Bubble Tea
// program per connection on wish, public-key authentication against <root>/ssh/authorized_keys
// with a role per key, every action audited as the key's and refused in the backend when the
// role does not allow it. It never gives a shell, runs a command or forwards anything.
package sshserve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/ssh"
	"charm.land/wish/v2"
	"charm.land/wish/v2/bubbletea"
	"charm.land/wish/v2/recover"
	gossh "golang.org/x/crypto/ssh"

	"cockpit/engine"
	"cockpit/live"
	"cockpit/tui"
)

// Audit kinds of the SSH server.
const (
	KindConnect        = "ssh_connect"
	KindDisconnect     = "ssh_disconnect"
	KindAuthRefused    = "ssh_auth_refused"
	KindRequestRefused = "ssh_request_refused"
)

// DefaultMaxConns is how many screens serve-ssh serves at once unless told otherwise.
const DefaultMaxConns = 32

// Options configure a Server.
type Options struct {
	HostKey gossh.Signer
	Keys    *KeyFile
	// Backend is the session every connection's screen shows (shared; wrapped per key).
	Backend tui.Backend
	// Screen builds one connection's screen over its guarded backend.
	Screen func(be tui.Backend) (*tui.Model, error)
	// Follow yields the engine's events to a screen until ctx ends.
	Follow    func(ctx context.Context, send func(engine.Event))
	Audit     live.AuditSink
	SessionID string // the cockpit session the audit rows belong to
	Now       func() time.Time
	// IdleTimeout closes a connection with no keypress for this long (0: never).
	IdleTimeout time.Duration
	// MaxFailures failed attempts of one key from one address within FailWindow refuse that
	// key from that address until the window passes (defaults 10 and 1 minute); other keys
	// still get in. An address with that many failures of any keys is noisy: its refusals are
	// logged rather than audited one by one.
	MaxFailures int
	FailWindow  time.Duration
	// MaxConns is how many screens may be open at once (default 32); the next authenticated
	// session is told so and closed. Connections still authenticating count too: past twice
	// MaxConns open connections, the next is told so before the SSH banner and closed.
	MaxConns int
	Log      *slog.Logger
}

// Server is the SSH server.
type Server struct {
	o   Options
	srv *ssh.Server
	lim *limiter

	calls *inflight // backend calls and connection handlers under way

	mu       sync.Mutex
	peers    map[*conn]struct{}
	attempts map[string]*attempt // remote address → a handshake in progress
	open     int                 // connections admitted and not yet closed

	refusedLogged atomic.Int64  // unix nanos of the last "too many open" refusal (logged one in 10 s)
	refusing      chan struct{} // refusals reading what the client sent (bounded)
}

// attempt is what one connection tried before it authenticated (or did not).
type attempt struct {
	user    string
	methods []string
	keys    []string // fingerprints of the keys offered
	ok      bool
}

// New builds the server; Serve starts it.
func New(o Options) (*Server, error) {
	if o.HostKey == nil || o.Keys == nil || o.Backend == nil || o.Screen == nil || o.Audit == nil {
		return nil, errors.New("sshserve: host key, keys, backend, screen and audit are required")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxFailures <= 0 {
		o.MaxFailures = 10
	}
	if o.FailWindow <= 0 {
		o.FailWindow = time.Minute
	}
	if o.MaxConns <= 0 {
		o.MaxConns = DefaultMaxConns
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{o: o, lim: newLimiter(o.MaxFailures, o.FailWindow, o.Now), calls: newInflight(), peers: map[*conn]struct{}{},
		attempts: map[string]*attempt{}, refusing: make(chan struct{}, 2*o.MaxConns)}
	srv, err := wish.NewServer(
		func(srv *ssh.Server) error { srv.HostSigners = []ssh.Signer{o.HostKey}; return nil },
		wish.WithPublicKeyAuth(s.publicKey),
		wish.WithMiddleware(recover.MiddlewareWithLogger(slogPrintf{o.Log},
			s.afterScreen, bubbletea.MiddlewareWithProgramHandler(s.program), s.accept)),
	)
	if err != nil {
		return nil, err
	}
	srv.Version = "cockpit"
	srv.HandshakeTimeout = 30 * time.Second
	srv.ServerConfigCallback = s.config
	srv.ConnCallback = s.connOpened
	srv.ConnectionFailedCallback = s.connFailed
	srv.ConnectionCloseCallback = s.connClosed
	srv.SessionRequestCallback = s.sessionRequest
	srv.PtyCallback = func(ssh.Context, ssh.Pty) bool { return true }
	// Sessions only (agent requests filtered out); a port forward in either direction is
	// refused and audited, and so is any other channel or global request.
	srv.ChannelHandlers = map[string]ssh.ChannelHandler{"session": s.session, "default": s.refuseChannel}
	srv.RequestHandlers = map[string]ssh.RequestHandler{"default": s.refuseRequest}
	srv.LocalPortForwardingCallback = func(ssh.Context, string, uint32) bool { return false }
	srv.ReversePortForwardingCallback = func(ssh.Context, string, uint32) bool { return false }
	srv.SubsystemHandlers = nil
	s.srv = srv
	return s, nil
}

// Serve accepts connections on ln until Close.
func (s *Server) Serve(ln net.Listener) error {
	err := s.srv.Serve(ln)
	if errors.Is(err, ssh.ErrServerClosed) {
		return nil
	}
	return err
}

// Close stops the server, closes every connection and waits until their screens have ended
// and no backend call is under way: the session can be closed after it.
func (s *Server) Close() error {
	err := s.srv.Close()
	s.calls.close()
	return err
}

// Peers lists who is connected, "alice@laptop (operator)", sorted.
func (s *Server) Peers() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.peers))
	for c := range s.peers {
		out = append(out, fmt.Sprintf("%s (%s)", c.id.Name(), c.id.Role))
	}
	sort.Strings(out)
	return out
}

// Roles counts the screens open by role (the metrics' cockpit_ssh_sessions).
func (s *Server) Roles() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for c := range s.peers {
		out[c.id.Role.String()]++
	}
	return out
}

// record audits r (actor, time and tool filled in); a failure is logged and returned.
func (s *Server) record(actor live.Principal, r live.AuditRecord) error {
	r.Time, r.Actor = s.o.Now(), actor
	if r.Tool == "" {
		r.Tool = "ssh"
	}
	err := s.o.Audit.Record(context.Background(), r)
	if err != nil {
		s.o.Log.Error("ssh: audit write failed", "kind", r.Kind, "err", err)
	}
	return err
}

// system is the principal the server audits refusals of strangers as.
func (s *Server) system() live.Principal { return live.System("ssh", s.o.SessionID) }

// Listen listens on addr, refusing an address that is not loopback unless allowRemote.
func Listen(addr string, allowRemote bool) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--listen %q: %w", addr, err)
	}
	if !allowRemote && !isLoopback(host) {
		return nil, fmt.Errorf("--listen %s is not a loopback address: anyone who reaches it could try keys; add --allow-remote to mean it", addr)
	}
	return net.Listen("tcp", addr)
}

// isLoopback reports a loopback host (an IP literal or localhost).
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// hostOf is the IP of a remote address (the rate limit's key).
func hostOf(a net.Addr) string {
	if a == nil {
		return "unknown"
	}
	if h, _, err := net.SplitHostPort(a.String()); err == nil {
		return h
	}
	return a.String()
}

// slogPrintf adapts a slog.Logger to the recover middleware's Printf.
type slogPrintf struct{ l *slog.Logger }

func (p slogPrintf) Printf(format string, v ...any) {
	p.l.Error("ssh: recovered a panic in a connection", "panic", fmt.Sprintf(format, v...))
}
