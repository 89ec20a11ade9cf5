package sshserve

import (
	"cockpit/readmodel"
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"charm.land/wish/v2"
	"github.com/charmbracelet/colorprofile"
	gossh "golang.org/x/crypto/ssh"

	"cockpit/live"
	"cockpit/tui"
)

// conn is one authenticated SSH session serving a screen.
type conn struct {
	id     Identity
	remote string
	last   atomic.Int64 // unix nanos of the last keypress, paste or click
	idle   atomic.Bool  // closed for idleness
	model  *tui.Model   // the screen, once built
	guard  *guarded
	stop   func() // ends the screen's helpers (engine events, idle watchdog)
}

type connKey struct{}

// seat lists c among the peers when fewer than MaxConns screens are open.
func (s *Server) seat(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.peers) >= s.o.MaxConns {
		return false
	}
	s.peers[c] = struct{}{}
	return true
}

// unseat removes c from the peers.
func (s *Server) unseat(c *conn) {
	s.mu.Lock()
	delete(s.peers, c)
	s.mu.Unlock()
}

// actor is the principal the connection's own events are audited as.
func (s *Server) actor(c *conn) live.Principal { return live.Operator(c.id.Actor(), s.o.SessionID) }

// accept admits an authenticated session: its key is looked up again (a key removed since
// the handshake is refused), it takes one of MaxConns seats (none free: refused, audited and
// told why), the connection is audited (no audit, no screen) and listed among the peers
// until it ends.
func (s *Server) accept(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		if !s.calls.enter() {
			wish.Fatalln(sess, "cockpit: the server is closing")
			return
		}
		defer s.calls.leave()
		id, ok := s.o.Keys.Lookup(sess.PublicKey())
		if !ok {
			wish.Fatalln(sess, "cockpit: this key is not in authorized_keys (any more)")
			return
		}
		c := &conn{id: id, remote: sess.RemoteAddr().String()}
		c.last.Store(s.o.Now().UnixNano())
		if !s.seat(c) {
			s.record(s.actor(c), live.AuditRecord{Kind: KindRequestRefused, Outcome: live.OutcomeRejected,
				Intent: fmt.Sprintf("refused a screen to %s: too many screens open (limit %d)", id.Name(), s.o.MaxConns),
				Detail: map[string]any{"request": "screen", "remote": c.remote, "user": sess.User(), "limit": s.o.MaxConns}})
			wish.Fatalln(sess, fmt.Sprintf("cockpit: too many screens open (limit %d); try again later", s.o.MaxConns))
			return
		}
		pty, _, _ := sess.Pty()
		detail := map[string]any{"role": id.Role.String(), "fingerprint": id.Fingerprint, "remote": c.remote, "user": sess.User(),
			"pty": fmt.Sprintf("%dx%d %s", pty.Window.Width, pty.Window.Height, pty.Term)}
		if err := s.record(s.actor(c), live.AuditRecord{Kind: KindConnect, Outcome: live.OutcomeAccepted,
			Intent: fmt.Sprintf("%s connected over SSH as %s from %s (%s)", id.Name(), id.Role, c.remote, id.Fingerprint), Detail: detail}); err != nil {
			s.unseat(c)
			wish.Fatalln(sess, "cockpit: the audit trail cannot record this connection, so it is refused")
			return
		}
		defer func() {
			s.unseat(c)
			why := "disconnected"
			if c.idle.Load() {
				why = fmt.Sprintf("closed after %s without a keypress", s.o.IdleTimeout)
			}
			s.record(s.actor(c), live.AuditRecord{Kind: KindDisconnect, Outcome: live.OutcomeAccepted,
				Intent: fmt.Sprintf("%s %s", id.Name(), why), Detail: detail})
		}()
		sess.Context().SetValue(connKey{}, c)
		next(sess)
	}
}

// program builds the connection's screen: the tui model over the guarded backend, sized to
// the client's pty, with engine events followed and the idle watchdog running.
func (s *Server) program(sess ssh.Session) *tea.Program {
	c, _ := sess.Context().Value(connKey{}).(*conn)
	if c == nil {
		return nil
	}
	g := &guarded{be: s.o.Backend, id: c.id, peers: s.Peers, calls: s.calls,
		audit: func(_ context.Context, r live.AuditRecord) { s.record(s.actor(c), r) }}
	model, err := s.o.Screen(g)
	if err != nil {
		wish.Fatalln(sess, "cockpit: "+err.Error())
		return nil
	}
	pty, _, _ := sess.Pty()
	env := append(sess.Environ(), "TERM="+pty.Term)
	// The program quits with the connection (the middleware), with its session channel
	// (input at EOF: the client closed it) and when the idle watchdog closes it; the engine
	// events stop after it (afterScreen).
	ctx, cancel := context.WithCancel(sess.Context())
	in := &untilEOF{r: sess}
	p := tea.NewProgram(model, tea.WithInput(in), tea.WithOutput(sess),
		tea.WithEnvironment(env), tea.WithColorProfile(colorprofile.Env(env)),
		tea.WithWindowSize(pty.Window.Width, pty.Window.Height), tea.WithFPS(tui.FPS),
		tea.WithFilter(func(_ tea.Model, msg tea.Msg) tea.Msg { return s.filter(c, msg) }))
	if s.o.Follow != nil {
		go func() {
			defer s.recovered("following engine events", c)
			s.o.Follow(ctx, tui.SendEvents(p.Send))
		}()
	}
	if s.o.IdleTimeout > 0 {
		go s.watchIdle(ctx, p.Quit, sess, c)
	}
	in.eof = p.Quit
	c.model, c.guard, c.stop = model, g, cancel
	return p
}

// afterScreen runs once the connection's program has ended: a quit that chose halt halts
// (every role may halt).
func (s *Server) afterScreen(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		c, _ := sess.Context().Value(connKey{}).(*conn)
		if c != nil && c.stop != nil {
			c.stop()
		}
		if c != nil && c.model != nil && c.model.QuitChoice() == readmodel.QuitHalt {
			if err := c.guard.Halt(context.Background(), "quit over SSH choosing halt"); err != nil {
				s.o.Log.Warn("ssh: halt on quit", "who", c.id.Name(), "err", err)
			}
		}
		next(sess)
	}
}

// untilEOF reads the session's input and calls eof once it ends (the client closed the
// channel): the program must not outlive it.
type untilEOF struct {
	r   io.Reader
	eof func() // set before the program starts reading
}

func (u *untilEOF) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	if err != nil && u.eof != nil {
		u.eof()
	}
	return n, err
}

// filter notes activity (keys, pastes, clicks) and never lets the program suspend.
func (s *Server) filter(c *conn, msg tea.Msg) tea.Msg {
	switch msg.(type) {
	case tea.KeyPressMsg, tea.PasteMsg, tea.MouseClickMsg, tea.MouseWheelMsg:
		c.last.Store(s.o.Now().UnixNano())
	case tea.SuspendMsg:
		return tea.ResumeMsg{}
	}
	return msg
}

// watchIdle closes the session once nobody pressed a key for the idle timeout.
func (s *Server) watchIdle(ctx context.Context, end func(), sess ssh.Session, c *conn) {
	defer s.recovered("idle watchdog", c)
	every := min(max(s.o.IdleTimeout/4, 10*time.Millisecond), time.Second)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if s.o.Now().Sub(time.Unix(0, c.last.Load())) >= s.o.IdleTimeout {
				c.idle.Store(true)
				s.o.Log.Info("ssh: idle session closed", "who", c.id.Name(), "after", s.o.IdleTimeout)
				end()
				fmt.Fprintf(sess.Stderr(), "\r\ncockpit: closed after %s without a keypress\r\n", s.o.IdleTimeout)
				sess.Close()
				return
			}
		}
	}
}

// recovered contains a panic on a connection's own goroutine: it is logged and the
// connection's screen loses that helper; the trading process goes on.
func (s *Server) recovered(what string, c *conn) {
	if r := recover(); r != nil {
		s.o.Log.Error("ssh: panic in "+what, "who", c.id.Name(), "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
	}
}

// sessionRequest admits only an interactive shell request with a pty (it gets the screen,
// never a shell); exec and subsystem requests are refused and audited.
func (s *Server) sessionRequest(sess ssh.Session, typ string) bool {
	_, _, hasPty := sess.Pty()
	if typ == "shell" && hasPty {
		return true
	}
	what := typ
	switch {
	case typ == "shell":
		what = "shell without a pty"
	case typ == "exec":
		what = fmt.Sprintf("exec %q", sess.RawCommand())
	case typ == "subsystem":
		what = fmt.Sprintf("subsystem %q", sess.Subsystem())
	}
	s.refused(sess.Context(), what)
	return false
}

// refused audits a refused request or channel on an authenticated connection.
func (s *Server) refused(ctx ssh.Context, what string) {
	actor := s.system()
	if key, ok := ctx.Value(ssh.ContextKeyPublicKey).(ssh.PublicKey); ok {
		if id, ok := s.o.Keys.Lookup(key); ok {
			actor = live.Operator(id.Actor(), s.o.SessionID)
		}
	}
	s.record(actor, live.AuditRecord{Kind: KindRequestRefused, Outcome: live.OutcomeRejected,
		Intent: "refused " + what + " (serve-ssh serves the screen only)",
		Detail: map[string]any{"request": what, "remote": fmt.Sprint(ctx.RemoteAddr()), "user": ctx.User()}})
}

// refuseChannel refuses every channel but a session (direct-tcpip: a local port forward).
func (s *Server) refuseChannel(_ *ssh.Server, _ *gossh.ServerConn, nc gossh.NewChannel, ctx ssh.Context) {
	s.refused(ctx, "channel "+nc.ChannelType())
	nc.Reject(gossh.Prohibited, "cockpit serve-ssh serves the screen only")
}

// refuseRequest refuses every global request (tcpip-forward: a remote port forward).
func (s *Server) refuseRequest(ctx ssh.Context, _ *ssh.Server, req *gossh.Request) (bool, []byte) {
	if req.Type != "keepalive@openssh.com" {
		s.refused(ctx, "request "+req.Type)
	}
	return false, nil
}

// session runs a session channel with agent forwarding (and X11) refused: those requests
// never reach the session handler.
func (s *Server) session(srv *ssh.Server, c *gossh.ServerConn, nc gossh.NewChannel, ctx ssh.Context) {
	ssh.DefaultSessionHandler(srv, c, filtered{NewChannel: nc, s: s, ctx: ctx}, ctx)
}

// filtered is a session channel whose agent-forwarding and X11 requests are refused.
type filtered struct {
	gossh.NewChannel
	s   *Server
	ctx ssh.Context
}

func (f filtered) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	ch, reqs, err := f.NewChannel.Accept()
	if err != nil {
		return ch, reqs, err
	}
	out := make(chan *gossh.Request)
	go func() {
		defer close(out)
		for r := range reqs {
			switch r.Type {
			case "auth-agent-req@openssh.com", "x11-req":
				f.s.refused(f.ctx, r.Type)
				if r.WantReply {
					r.Reply(false, nil)
				}
				continue
			}
			out <- r
		}
	}()
	return ch, out, nil
}
