package sshserve

import (
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"time"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"

	"cockpit/live"
)

// connOpened admits a connection while fewer than twice MaxConns are open (screens and
// handshakes under way); past that it is told why, before the SSH banner, and closed. It
// starts tracking what the connection tries.
func (s *Server) connOpened(ctx ssh.Context, c net.Conn) net.Conn {
	s.mu.Lock()
	full := s.open >= 2*s.o.MaxConns
	if !full {
		s.open++
		s.attempts[c.RemoteAddr().String()] = &attempt{}
	}
	s.mu.Unlock()
	if full {
		s.refuseConn(c)
		return nil
	}
	return c
}

// refuseTimeout bounds the writing of a refusal and the reading of what the client sent.
const refuseTimeout = 250 * time.Millisecond

// refuseConn tells a connection past the cap why it is closed. What the client sent (its
// version line) is read for a moment, so it reads the reason rather than a reset, unless a
// flood keeps too many such reads going.
func (s *Server) refuseConn(c net.Conn) {
	if now := time.Now().UnixNano(); now-s.refusedLogged.Swap(now) > int64(10*time.Second) { // a flood: one line in ten seconds
		s.o.Log.Warn("ssh: connection refused: too many open", "remote", c.RemoteAddr().String(), "limit", 2*s.o.MaxConns)
	}
	c.SetDeadline(time.Now().Add(refuseTimeout))
	if _, err := fmt.Fprintf(c, "cockpit: too many SSH connections open (limit %d); try again later\r\n", 2*s.o.MaxConns); err != nil {
		return
	}
	if hc, ok := c.(interface{ CloseWrite() error }); ok {
		hc.CloseWrite()
	}
	select {
	case s.refusing <- struct{}{}:
		io.Copy(io.Discard, io.LimitReader(c, 64<<10)) // on this connection's own goroutine
		<-s.refusing
	default:
	}
}

// connClosed ends an admitted connection: its slot frees and its attempts are forgotten.
func (s *Server) connClosed(c net.Conn) {
	s.forget(c.RemoteAddr())
	s.mu.Lock()
	s.open--
	s.mu.Unlock()
}

// config is each connection's server config: no password, no keyboard-interactive (neither
// is offered); every attempted method is noted for the refusal's audit row.
func (s *Server) config(ctx ssh.Context) *gossh.ServerConfig {
	return &gossh.ServerConfig{
		MaxAuthTries: 6,
		AuthLogCallback: func(md gossh.ConnMetadata, method string, err error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			if a := s.attempts[md.RemoteAddr().String()]; a != nil {
				a.user = md.User()
				if len(a.methods) < 16 {
					a.methods = append(a.methods, method)
				}
				a.ok = a.ok || err == nil
			}
		},
	}
}

// publicKey authorizes a key listed in authorized_keys (read now), unless that key has failed
// too often from this address (another key's failures never count against it); an unknown
// key is refused and audited with its fingerprint, unless the address is noisy (its refusals
// are then logged). A connection that, in the end, gets nothing in counts a failure for each
// key it offered: an agent offering several keys before the right one is not punished.
func (s *Server) publicKey(ctx ssh.Context, key ssh.PublicKey) bool {
	host, fp := hostOf(ctx.RemoteAddr()), gossh.FingerprintSHA256(key)
	s.offered(ctx.RemoteAddr(), fp)
	if s.lim.Blocked(host, fp) {
		s.o.Log.Info("ssh: key refused: too many failed attempts", "fingerprint", fp, "remote", ctx.RemoteAddr().String())
		return false
	}
	if _, ok := s.o.Keys.Lookup(key); ok {
		return true
	}
	why := "not in authorized_keys"
	if _, err := s.o.Keys.Load(); err != nil {
		why = err.Error()
	}
	if s.lim.Noisy(host) {
		s.o.Log.Info("ssh: key refused", "fingerprint", fp, "remote", ctx.RemoteAddr().String(), "why", why)
		return false
	}
	s.record(s.system(), live.AuditRecord{Kind: KindAuthRefused, Outcome: live.OutcomeRejected,
		Intent: fmt.Sprintf("refused key %s for user %q from %s", fp, ctx.User(), ctx.RemoteAddr()),
		Error:  why,
		Detail: map[string]any{"method": "publickey", "fingerprint": fp, "key_type": key.Type(), "user": ctx.User(), "remote": ctx.RemoteAddr().String()}})
	return false
}

// offered notes a key a connection offered.
func (s *Server) offered(addr net.Addr, fp string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.attempts[addr.String()]; a != nil && len(a.keys) < 16 && !slices.Contains(a.keys, fp) {
		a.keys = append(a.keys, fp)
	}
}

// connFailed counts a connection that ended without authenticating: a failure for each key
// it offered (or, with none, for the address alone). It audits the connection unless its keys
// were all it offered (each was audited already) or the address is noisy; the failure that
// makes the address noisy is audited once.
func (s *Server) connFailed(c net.Conn, err error) {
	a := s.forget(c.RemoteAddr())
	if a == nil || a.ok {
		return
	}
	if len(a.methods) == 0 { // no attempt at all (a port probe, a dropped handshake): logged only
		s.o.Log.Info("ssh: connection closed before authentication", "remote", c.RemoteAddr().String(), "err", err)
		return
	}
	host := hostOf(c.RemoteAddr())
	keys, noisy := a.keys, false
	if len(keys) == 0 {
		keys = []string{""}
	}
	for _, fp := range keys {
		noisy = s.lim.Fail(host, fp) || noisy
	}
	if noisy {
		s.record(s.system(), live.AuditRecord{Kind: KindAuthRefused, Outcome: live.OutcomeRejected,
			Intent: fmt.Sprintf("%s: %d failed attempts within %s; its refusals are logged, not audited, until they age out (keys that have not failed still get in)",
				host, s.o.MaxFailures, s.o.FailWindow),
			Detail: map[string]any{"remote": host, "failures": s.o.MaxFailures, "window": s.o.FailWindow.String()}})
	}
	other := false
	for _, m := range a.methods {
		if m != "publickey" && m != "none" {
			other = true
		}
	}
	if (len(a.keys) > 0 && !other) || (s.lim.Noisy(host) && !noisy) {
		return
	}
	s.record(s.system(), live.AuditRecord{Kind: KindAuthRefused, Outcome: live.OutcomeRejected,
		Intent: fmt.Sprintf("refused user %q from %s: no authorized public key (tried %s)", a.user, c.RemoteAddr(), strings.Join(a.methods, ", ")),
		Error:  fmt.Sprint(err),
		Detail: map[string]any{"methods": a.methods, "user": a.user, "remote": c.RemoteAddr().String()}})
}

// forget stops tracking a connection's attempts and returns them.
func (s *Server) forget(addr net.Addr) *attempt {
	if addr == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.attempts[addr.String()]
	delete(s.attempts, addr.String())
	return a
}
