package sshserve

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// TestFailuresDoNotLockOutAGoodKey (issue 27 item 7): twelve failed logins from loopback with
// a key that is not authorized do not lock the admin's key out of the same address.
func TestFailuresDoNotLockOutAGoodKey(t *testing.T) {
	r := newRig(t, nil)
	for i := range 12 {
		if c, err := r.dial(gossh.PublicKeys(r.keys["stranger"])); err == nil {
			c.Close()
			t.Fatalf("attempt %d: an unknown key got in", i+1)
		}
	}
	c, err := r.dial(gossh.PublicKeys(r.keys["admin"]))
	if err != nil {
		t.Fatalf("the admin key after 12 failed logins with another key from the same address: %v", err)
	}
	c.Close()
	eventually(t, "the failures counted (the address's row)", func() bool {
		for _, e := range r.events(KindAuthRefused) {
			if strings.Contains(e.Summary, "failed attempts") {
				return true
			}
		}
		return false
	})
	r.client("admin").Close() // and once every failure is counted
}

// TestScreenCap (issue 27 item 7): past MaxConns open screens the next authenticated session
// is told why and closed (and the refusal audited); a screen that closes frees its seat.
func TestScreenCap(t *testing.T) {
	r := newRig(t, func(o *Options) { o.MaxConns = 1 })
	first := r.screen("viewer")
	eventually(t, "the first screen seated", func() bool { return len(r.srv.Peers()) == 1 })
	c := r.client("admin")
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &syncBuf{}
	sess.Stderr = stderr
	if err := sess.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	sess.Wait()
	if got := stderr.String(); !strings.Contains(got, "cockpit: too many screens open (limit 1); try again later") {
		t.Fatalf("second screen: stderr %q, want the refusal naming the limit", got)
	}
	refused := false
	for _, e := range r.events(KindRequestRefused) {
		refused = refused || strings.Contains(e.Summary, "too many screens open (limit 1)")
	}
	if !refused {
		t.Error("the refused screen is not in the audit")
	}
	c.Close() // its connection counts against the connection cap (twice MaxConns)
	first.sess.Close()
	eventually(t, "the seat freed", func() bool { return len(r.srv.Peers()) == 0 })
	r.screen("admin")
	eventually(t, "the admin seated", func() bool { return len(r.srv.Peers()) == 1 })
}

// TestConnectionCap (issue 27 item 7): past twice MaxConns open connections (handshakes
// included) the next is told why before the SSH banner and closed; a closed one frees its slot.
func TestConnectionCap(t *testing.T) {
	r := newRig(t, func(o *Options) { o.MaxConns = 1 })
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", r.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := bufio.NewReader(c).ReadString('\n'); err != nil { // the server's banner: admitted
			t.Fatal(err)
		}
		held = append(held, c)
	}
	extra, err := net.Dial("tcp", r.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	extra.SetDeadline(time.Now().Add(20 * time.Second))
	got, _ := io.ReadAll(extra)
	if want := "cockpit: too many SSH connections open (limit 2); try again later\r\n"; string(got) != want {
		t.Fatalf("third connection read %q, want %q and the close", got, want)
	}
	held[0].Close()
	eventually(t, "a slot freed and the admin in", func() bool {
		c, err := r.dial(gossh.PublicKeys(r.keys["admin"]))
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}
