package sshserve

import (
	"fmt"
	"net"
	"strings"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"

	"cockpit/live"
)

// connOpened refuses an address past its failed-attempt limit before the handshake, and
// starts tracking what the connection tries.
func (s *Server) connOpened(ctx ssh.Context, c net.Conn) net.Conn {
	if s.lim.Blocked(hostOf(c.RemoteAddr())) {
		s.o.Log.Warn("ssh: connection refused: too many failed attempts", "remote", c.RemoteAddr().String())
		return nil
	}
	s.mu.Lock()
	s.attempts[c.RemoteAddr().String()] = &attempt{}
	s.mu.Unlock()
	return c
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

// publicKey authorizes a key listed in authorized_keys (read now); an unknown key is
// refused and audited with its fingerprint (the connection, if nothing gets it in, counts
// against its address: an agent offering several keys before the right one is not punished).
func (s *Server) publicKey(ctx ssh.Context, key ssh.PublicKey) bool {
	host := hostOf(ctx.RemoteAddr())
	if s.lim.Blocked(host) {
		return false
	}
	if _, ok := s.o.Keys.Lookup(key); ok {
		return true
	}
	fp := gossh.FingerprintSHA256(key)
	why := "not in authorized_keys"
	if _, err := s.o.Keys.Load(); err != nil {
		why = err.Error()
	}
	s.record(s.system(), live.AuditRecord{Kind: KindAuthRefused, Outcome: live.OutcomeRejected,
		Intent: fmt.Sprintf("refused key %s for user %q from %s", fp, ctx.User(), ctx.RemoteAddr()),
		Error:  why,
		Detail: map[string]any{"method": "publickey", "fingerprint": fp, "key_type": key.Type(), "user": ctx.User(), "remote": ctx.RemoteAddr().String()}})
	return false
}

// connFailed counts a connection that ended without authenticating against its address,
// and audits it unless its keys were all it offered (each was audited already): a password
// or keyboard-interactive attempt, or no credential at all.
func (s *Server) connFailed(c net.Conn, err error) {
	a := s.forget(c.RemoteAddr())
	if a == nil || a.ok {
		return
	}
	if len(a.methods) == 0 { // no attempt at all (a port probe, a dropped handshake): logged only
		s.o.Log.Info("ssh: connection closed before authentication", "remote", c.RemoteAddr().String(), "err", err)
		return
	}
	s.lim.Fail(hostOf(c.RemoteAddr()))
	keys, other := false, false
	for _, m := range a.methods {
		switch m {
		case "publickey":
			keys = true
		case "none":
		default:
			other = true
		}
	}
	if keys && !other {
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
