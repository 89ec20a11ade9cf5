package sshserve

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"cockpit/store"
	"cockpit/tui"
)

// pending adds a pending review item to the session's store.
func (r *rig) pending(id string) {
	r.t.Helper()
	now := time.Now()
	err := r.s.Runtime().DB.CreateApproval(context.Background(), store.Approval{ID: id, SessionID: r.s.ID(), Broker: "paper",
		OrderJSON: `{"side":"buy","symbol":"AAPL","notional":"9000"}`, Digest: "d-" + id, Why: "breach", Limit: "max_order_notional",
		LimitValue: "5000", Attempted: "9000", CreatedAt: now, Deadline: now.Add(time.Hour), State: store.ApprovalPending})
	if err != nil {
		r.t.Fatal(err)
	}
}

// approval reads a review item's state.
func (r *rig) approval(id string) store.Approval {
	r.t.Helper()
	a, err := r.s.Runtime().DB.Approval(context.Background(), id)
	if err != nil {
		r.t.Fatal(err)
	}
	return a
}

// refusedRow finds the ssh_action_refused row for action, if any.
func (r *rig) refusedRow(action string) (store.Event, bool) {
	for _, e := range r.events(KindActionRefused) {
		if strings.HasPrefix(e.Summary, action) {
			return e, true
		}
	}
	return store.Event{}, false
}

// until presses keys on tm again and again until cond holds (the screen may not have read
// its first snapshot yet when the keys first arrive).
func until(t *testing.T, tm *term, keys, what string, cond func() bool) {
	t.Helper()
	next := time.Now()
	eventually(t, what, func() bool {
		if time.Now().After(next) {
			io.WriteString(tm.in, keys) // an error (the screen quit) shows in cond
			next = time.Now().Add(300 * time.Millisecond)
		}
		return cond()
	})
}

// TestViewerHaltsButMayNotResumeOrApprove: H from a viewer key writes the HALT file, audited
// as ssh:<comment>; U (resume) and a (approve) are refused in the backend and audited, and
// change nothing.
func TestViewerHaltsButMayNotResumeOrApprove(t *testing.T) {
	r := newRig(t, nil)
	r.pending("ap_v1")
	tm := r.screen("viewer")
	eventually(t, "the screen is drawn", func() bool { return strings.Contains(ansi.Strip(tm.out.String()), "PAPER") })
	tm.press(t, "H")
	eventually(t, "the HALT file", func() bool { return exists(r.haltFile()) })
	eventually(t, "the halt's audit row", func() bool { return len(r.events("halt_tripped")) > 0 })
	halts := r.events("halt_tripped")
	if len(halts) != 1 || halts[0].ActorID != "ssh:viewer@test" {
		t.Fatalf("halt_tripped rows = %+v, want one by ssh:viewer@test", halts)
	}
	conns := r.events(KindConnect)
	fp := gossh.FingerprintSHA256(r.keys["viewer"].PublicKey())
	if len(conns) != 1 || conns[0].ActorID != "ssh:viewer@test" || !strings.Contains(conns[0].Summary, fp) {
		t.Fatalf("ssh_connect rows = %+v, want one by ssh:viewer@test naming %s", conns, fp)
	}

	until(t, tm, "Uy", "the refused resume", func() bool { _, ok := r.refusedRow("resume"); return ok })
	row, _ := r.refusedRow("resume")
	if row.ActorID != "ssh:viewer@test" || !strings.Contains(row.Payload, "viewer viewer@test may not resume") {
		t.Errorf("refused resume row = %+v", row)
	}
	if !exists(r.haltFile()) {
		t.Fatal("a viewer's U removed the HALT file")
	}

	until(t, tm, "4ay", "the refused approve", func() bool { _, ok := r.refusedRow("approve"); return ok })
	if got := r.approval("ap_v1").State; got != store.ApprovalPending {
		t.Fatalf("after a viewer's a: ap_v1 is %s, want pending", got)
	}
}

// TestOperatorApproves: an operator key approves a pending review item from the screen;
// the store says who.
func TestOperatorApproves(t *testing.T) {
	r := newRig(t, nil)
	r.pending("ap_o1")
	tm := r.screen("operator")
	until(t, tm, "4ay", "the approval", func() bool { return r.approval("ap_o1").State == store.ApprovalApproved })
	if got := r.approval("ap_o1").ResolvedBy; got != "ssh:operator@test" {
		t.Fatalf("resolved by %q, want ssh:operator@test", got)
	}
	if _, ok := r.refusedRow("approve"); ok {
		t.Fatal("an operator's approve was refused")
	}
}

// TestStrangersRefused: a key not in authorized_keys and a password are refused and audited;
// a password is never offered, so the client never sends it.
func TestStrangersRefused(t *testing.T) {
	r := newRig(t, nil)
	if c, err := r.dial(gossh.PublicKeys(r.keys["stranger"])); err == nil {
		c.Close()
		t.Fatal("an unknown key got in")
	}
	fp := gossh.FingerprintSHA256(r.keys["stranger"].PublicKey())
	eventually(t, "the unknown key's audit row", func() bool {
		for _, e := range r.events(KindAuthRefused) {
			if strings.Contains(e.Summary, fp) {
				return true
			}
		}
		return false
	})

	before := len(r.events(KindAuthRefused))
	_, err := r.dial(gossh.Password("hunter2"), gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) {
		return []string{"hunter2"}, nil
	}))
	if err == nil {
		t.Fatal("a password got in")
	}
	if !strings.Contains(err.Error(), "attempted methods [none]") {
		t.Errorf("dial with a password: %v; want only none attempted (password and keyboard-interactive never offered)", err)
	}
	eventually(t, "the password attempt's audit row", func() bool { return len(r.events(KindAuthRefused)) > before })
	for _, e := range r.events(KindAuthRefused) {
		if strings.Contains(e.Payload, "hunter2") || strings.Contains(e.Summary, "hunter2") {
			t.Fatalf("the password reached the audit: %+v", e)
		}
	}
}

// TestRequestsRefused: exec, a shell without a pty, a subsystem, agent forwarding and port
// forwards in both directions are refused (and audited); nothing but the screen is served.
func TestRequestsRefused(t *testing.T) {
	r := newRig(t, nil)
	c := r.client("admin")
	tests := []struct {
		name string
		try  func() error
	}{
		{"exec", func() error { s, _ := c.NewSession(); defer s.Close(); return s.Run("id") }},
		{"shell without pty", func() error { s, _ := c.NewSession(); defer s.Close(); return s.Shell() }},
		{"subsystem", func() error { s, _ := c.NewSession(); defer s.Close(); return s.RequestSubsystem("sftp") }},
		{"agent forwarding", func() error { s, _ := c.NewSession(); defer s.Close(); return agent.RequestAgentForwarding(s) }},
		{"local forward", func() error {
			conn, err := c.Dial("tcp", r.addr)
			if err == nil {
				conn.Close()
			}
			return err
		}},
		{"remote forward", func() error {
			ln, err := c.Listen("tcp", "127.0.0.1:0")
			if err == nil {
				ln.Close()
			}
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.try(); err == nil {
				t.Fatalf("%s: accepted, want refused", tt.name)
			}
		})
	}
	eventually(t, "six refusals audited", func() bool { return len(r.events(KindRequestRefused)) >= len(tests) })
	for _, e := range r.events(KindRequestRefused) {
		if e.ActorID != "ssh:admin@test" {
			t.Errorf("refusal %q audited as %q, want ssh:admin@test", e.Summary, e.ActorID)
		}
	}
}

// TestAuthorizedKeysReread: a key removed from the file is refused at its next connection,
// without a restart.
func TestAuthorizedKeysReread(t *testing.T) {
	r := newRig(t, nil)
	r.client("operator").Close()
	data, err := os.ReadFile(r.file)
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.Contains(l, "operator@test") {
			keep = append(keep, l)
		}
	}
	if err := os.WriteFile(r.file, []byte(strings.Join(keep, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	if c, err := r.dial(gossh.PublicKeys(r.keys["operator"])); err == nil {
		c.Close()
		t.Fatal("a removed key still got in")
	}
	r.client("viewer").Close()
}

// TestFailedAttemptsRateLimited: past MaxFailures within the window the failing key is
// refused from that address (its refusals logged, the address's audited once), while a key
// that has not failed still gets in; after the window the count starts again.
func TestFailedAttemptsRateLimited(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC).UnixNano())
	r := newRig(t, func(o *Options) {
		o.MaxFailures, o.FailWindow = 2, time.Minute
		o.Now = func() time.Time { return time.Unix(0, now.Load()) }
	})
	for range 2 {
		if c, err := r.dial(gossh.PublicKeys(r.keys["stranger"])); err == nil {
			c.Close()
			t.Fatal("an unknown key got in")
		}
	}
	stranger := gossh.FingerprintSHA256(r.keys["stranger"].PublicKey())
	// The server counts a failed connection when it sees it end, which can come after the
	// client's dial returned: wait (bounded) until both are counted.
	eventually(t, "the stranger's two failures counted", func() bool { return r.srv.lim.Blocked("127.0.0.1", stranger) })
	// The failure is counted before its audit row is written: wait (bounded) for the rows too.
	const rows = 3 // two keys and the address's row
	eventually(t, "each key's refusal, then the noisy address's, audited", func() bool { return len(r.events(KindAuthRefused)) == rows })
	if c, err := r.dial(gossh.PublicKeys(r.keys["stranger"])); err == nil {
		c.Close()
		t.Fatal("a limited key got in")
	}
	r.client("operator").Close() // a key that has not failed is never limited
	if got := len(r.events(KindAuthRefused)); got != rows {
		t.Errorf("auth refusals audited after the noisy address tried again: %d, want %d (logged only)", got, rows)
	}
	now.Add(int64(2 * time.Minute))
	if r.srv.lim.Blocked("127.0.0.1", stranger) {
		t.Error("the stranger's key still limited after the window")
	}
}

// TestIdleSessionClosed: a session with no keypress for the idle timeout is closed, and the
// disconnect is audited saying so.
func TestIdleSessionClosed(t *testing.T) {
	r := newRig(t, func(o *Options) { o.IdleTimeout = 300 * time.Millisecond })
	tm := r.screen("viewer")
	done := make(chan error, 1)
	go func() { done <- tm.sess.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the idle session was not closed")
	}
	eventually(t, "the disconnect row", func() bool { return len(r.events(KindDisconnect)) == 1 })
	if got := r.events(KindDisconnect)[0].Summary; !strings.Contains(got, "without a keypress") {
		t.Fatalf("disconnect row %q, want it to say the session was idle", got)
	}
}

// TestPeersOnScreen: every connection's snapshot lists who is connected over SSH (the
// screen draws it, tui.TestRemoteLine), and a disconnect takes its key off.
func TestPeersOnScreen(t *testing.T) {
	r := newRig(t, nil)
	r.screen("viewer")
	op := r.screen("operator")
	want := []string{"operator@test (operator)", "viewer@test (viewer)"}
	eventually(t, "both peers", func() bool { return len(r.srv.Peers()) == 2 })
	ids, err := r.srv.o.Keys.Load()
	if err != nil {
		t.Fatal(err)
	}
	g := &guarded{be: r.s.Backend(), id: ids[0], peers: r.srv.Peers} // the viewer's screen
	want[1] += " ← you"
	if got := g.Snapshot(context.Background()).Remote; strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Fatalf("Remote = %q, want %q", got, want)
	}
	op.sess.Close()
	eventually(t, "the operator's disconnect", func() bool { return len(r.srv.Peers()) == 1 })
	if got := r.srv.Peers(); got[0] != "viewer@test (viewer)" {
		t.Fatalf("after the operator left: %q", got)
	}
}

// panicky panics on Snapshot: a screen bug in one connection.
type panicky struct{ tui.Backend }

func (panicky) Snapshot(context.Context) tui.Snapshot { panic("screen bug") }

// TestPanicContained: a panic building one connection's screen, or in its program, ends that
// connection only; the next one is served and halts.
func TestPanicContained(t *testing.T) {
	var n atomic.Int32
	r := newRig(t, nil)
	screen := r.srv.o.Screen
	r.srv.o.Screen = func(be tui.Backend) (*tui.Model, error) {
		switch n.Add(1) {
		case 1:
			panic("factory bug")
		case 2:
			return screen(panicky{be})
		}
		return screen(be)
	}
	for i := range 2 {
		tm := r.screen("operator")
		done := make(chan error, 1)
		go func() { done <- tm.sess.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("connection %d survived its panic", i+1)
		}
	}
	tm := r.screen("viewer")
	tm.press(t, "H")
	eventually(t, "the HALT file after two panics", func() bool { return exists(r.haltFile()) })
}

var _ = errors.New

// TestQuitChoosingHaltHalts: q then h on a screen halts (as the key may) and disconnects;
// q then y only disconnects.
func TestQuitChoosingHaltHalts(t *testing.T) {
	r := newRig(t, nil)
	tm := r.screen("viewer")
	until(t, tm, "qy", "the disconnect", func() bool { return len(r.events(KindDisconnect)) == 1 })
	if exists(r.haltFile()) {
		t.Fatal("q y halted")
	}
	tm = r.screen("viewer")
	until(t, tm, "qh", "the HALT file", func() bool { return exists(r.haltFile()) })
	eventually(t, "the second disconnect", func() bool { return len(r.events(KindDisconnect)) == 2 })
}

// TestRightKeyAfterWrongOnesNotLimited: a client offering unknown keys before its authorized
// one (an agent with several) gets in, again and again: only connections that never
// authenticate count against the address. Each unknown key is still audited.
func TestRightKeyAfterWrongOnesNotLimited(t *testing.T) {
	r := newRig(t, func(o *Options) { o.MaxFailures = 2 })
	for range 4 {
		c, err := r.dial(gossh.PublicKeys(r.keys["stranger"], r.keys["operator"]))
		if err != nil {
			t.Fatalf("a stranger key then the operator's: %v", err)
		}
		c.Close()
	}
	eventually(t, "four unknown-key rows", func() bool { return len(r.events(KindAuthRefused)) == 4 })
}
