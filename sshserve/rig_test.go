package sshserve

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"cockpit/live"
	"cockpit/session"
	"cockpit/store"
	"cockpit/tui"
)

// rig is a paper session served over SSH on loopback, with a viewer, an operator and an
// admin key in authorized_keys and a stranger's key that is not.
type rig struct {
	t    testing.TB
	s    *session.Session
	srv  *Server
	addr string
	keys map[string]gossh.Signer // viewer, operator, admin, stranger
	file string                  // authorized_keys
}

func newRig(t testing.TB, tweak func(*Options)) *rig {
	t.Helper()
	home := t.TempDir()
	s, err := session.Open(session.Options{Env: session.Env{Now: time.Now, Getenv: func(string) string { return "" }, Stderr: io.Discard},
		Root: live.Root(home), Agent: "none", Approvals: "tui"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	r := &rig{t: t, s: s, keys: map[string]gossh.Signer{}, file: filepath.Join(home, "ssh", "authorized_keys")}
	var lines []string
	for _, name := range []string{"viewer", "operator", "admin", "stranger"} {
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		sg, err := gossh.NewSignerFromKey(priv)
		if err != nil {
			t.Fatal(err)
		}
		r.keys[name] = sg
		if name != "stranger" {
			lines = append(lines, fmt.Sprintf("role=%s %s %s@test", name, strings.TrimSpace(string(gossh.MarshalAuthorizedKey(sg.PublicKey()))), name))
		}
	}
	if err := os.MkdirAll(filepath.Dir(r.file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.file, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	host, err := HostKey(filepath.Join(home, "ssh", "host_ed25519"))
	if err != nil {
		t.Fatal(err)
	}
	be := s.Backend()
	o := Options{HostKey: host, Keys: &KeyFile{Path: r.file}, Backend: be, Follow: be.Follow, Audit: s.Runtime().Audit, SessionID: s.ID(),
		Screen: func(b tui.Backend) (*tui.Model, error) {
			return tui.New(tui.Options{Backend: b, Getenv: func(string) string { return "" }, Generation: s.Bus().Generation(), Remote: true})
		}}
	if tweak != nil {
		tweak(&o)
	}
	r.srv, err = New(o)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := Listen("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	r.addr = ln.Addr().String()
	done := make(chan struct{})
	go func() { defer close(done); r.srv.Serve(ln) }()
	t.Cleanup(func() { r.srv.Close(); <-done })
	return r
}

// dial connects with the given auth methods (user "cockpit").
func (r *rig) dial(auth ...gossh.AuthMethod) (*gossh.Client, error) {
	return gossh.Dial("tcp", r.addr, &gossh.ClientConfig{User: "cockpit", Auth: auth,
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second})
}

// client connects with a role's key.
func (r *rig) client(role string) *gossh.Client {
	r.t.Helper()
	c, err := r.dial(gossh.PublicKeys(r.keys[role]))
	if err != nil {
		r.t.Fatalf("dial as %s: %v", role, err)
	}
	r.t.Cleanup(func() { c.Close() })
	return c
}

// term is a screen over SSH: a session with an 80×24 pty running the shell request.
type term struct {
	sess *gossh.Session
	in   io.WriteCloser
	out  *syncBuf
}

// screen opens the cockpit screen as role.
func (r *rig) screen(role string) *term {
	r.t.Helper()
	c := r.client(role)
	sess, err := c.NewSession()
	if err != nil {
		r.t.Fatal(err)
	}
	if err := sess.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
		r.t.Fatal(err)
	}
	out := &syncBuf{}
	sess.Stdout = out
	in, err := sess.StdinPipe()
	if err != nil {
		r.t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { sess.Close() })
	return &term{sess: sess, in: in, out: out}
}

// press types keys on the screen.
func (tm *term) press(t testing.TB, keys string) {
	t.Helper()
	if _, err := io.WriteString(tm.in, keys); err != nil {
		t.Fatalf("press %q: %v", keys, err)
	}
}

// syncBuf is a bytes.Buffer safe for the session's copy goroutine and the test.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// eventually polls cond until it holds, failing after a generous bound (not a timing
// assertion: the bound only stops a hung test).
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// events lists the audit rows of a type, oldest first.
func (r *rig) events(typ string) []store.Event {
	r.t.Helper()
	evs, err := r.s.Runtime().DB.Events(context.Background(), store.Filter{Type: typ, Ascending: true, Limit: 1000})
	if err != nil {
		r.t.Fatal(err)
	}
	return evs
}

// haltFile is the global HALT sentinel's path.
func (r *rig) haltFile() string { return r.s.Runtime().Root.SentinelPath(live.HaltSentinel, "") }

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

var _ net.Addr = (*net.TCPAddr)(nil)
