package session

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"cockpit/fleet"
	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/money"
	"cockpit/tui"
)

func fleetPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// testFleet is a fleet authority and, once served, its server: the hosts it issues
// credentials to are its peers.
type testFleet struct {
	port  int
	auth  *fleet.Authority
	ns    *server.Server
	peers []fleet.Peer
}

func newTestFleet(t *testing.T) *testFleet {
	t.Helper()
	a, err := fleet.NewAuthority()
	if err != nil {
		t.Fatal(err)
	}
	return &testFleet{port: fleetPort(t), auth: a}
}

// serve starts the fleet's server with the peers issued so far.
func (tf *testFleet) serve(t *testing.T) {
	t.Helper()
	ns, err := fleet.Serve(fleet.ServeOptions{Port: tf.port, StoreDir: t.TempDir(), Auth: tf.auth, Peers: tf.peers})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	tf.ns = ns
}

// creds issues host's credentials, lists it as a peer and returns the creds file.
func (tf *testFleet) creds(t *testing.T, host string) []byte {
	t.Helper()
	c, err := tf.auth.Issue(host)
	if err != nil {
		t.Fatal(err)
	}
	p, err := tf.auth.SignPeer(host, c.Key, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	tf.peers = append(tf.peers, p)
	if tf.ns != nil {
		if err := fleet.Provision(tf.ns, tf.auth, 1, []fleet.Peer{p}, fleet.AuditRetention{}); err != nil {
			t.Fatal(err)
		}
	}
	return c.Data
}

// fleetSession opens a session whose config joins the fleet as host, with the creds the
// authority issued it in <root>/fleet.creds, and runs it.
func fleetSession(t *testing.T, tf *testFleet, host string) *Session {
	t.Helper()
	home := t.TempDir()
	cfg := fmt.Sprintf("[fleet]\nurl = \"nats://127.0.0.1:%d\"\n", tf.port)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, fleet.CredsFile), tf.creds(t, host), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(testOptions(home))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; s.Close() })
	return s
}

func (s *Session) buyForTest() gate.Decision {
	n := money.MustParse("100")
	in := live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity, NotionalUSD: &n}
	return s.gate.Submit(context.Background(), gate.Submission{Broker: s.broker, Intent: &in, Actor: live.Agent("test", s.id)})
}

// TestSessionFleet: with [fleet] configured and no server, orders are DENY fleet_unavailable
// and the screen says the fleet is down; once the server is up they go; H on one host halts
// the other host's gate, whose trail records the mirrored halt as signed by the first; each
// host's trail reaches the fleet's stream with its chain, and every entry checks out.
func TestSessionFleet(t *testing.T) {
	tf := newTestFleet(t)
	a := fleetSession(t, tf, "ha")
	if d := a.buyForTest(); d.Reason != live.ReasonFleetUnavailable || d.Forwarded {
		t.Fatalf("no fleet server: got %s %s, want fleet_unavailable", d.Outcome, d.Reason)
	}
	if v := a.Backend().Snapshot(context.Background()).Fleet; v == nil || v.OK {
		t.Fatalf("snapshot fleet = %+v, want down", v)
	}
	tf.serve(t)
	b := fleetSession(t, tf, "hb")
	deadline := time.Now().Add(10 * time.Second)
	for !a.fleet.f.Connected() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if d := a.buyForTest(); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("fleet up: got %s %s", d.Outcome, d.Message())
	}
	if d := b.buyForTest(); d.Outcome != live.OutcomeAccepted || d.Count != 2 {
		t.Fatalf("host b: got %s count %d, want accepted as the fleet's second order", d.Outcome, d.Count)
	}
	if ga, gb := a.fleet.beat(a).Orders, b.fleet.beat(b).Orders; ga != 1 || gb != 1 {
		t.Errorf("heartbeat orders = %d, %d; want each host's own 1", ga, gb)
	}
	time.Sleep(200 * time.Millisecond) // both mirrors are watching
	if err := a.Backend().Halt(context.Background(), "key H"); err != nil {
		t.Fatal(err)
	}
	for !halt.IsGloballyHalted(b.rt.Root) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if d := b.buyForTest(); d.Reason != live.ReasonHalted {
		t.Fatalf("host b after H on host a: got %s %s, want halted", d.Outcome, d.Reason)
	}
	for time.Now().Before(deadline) {
		if rows, _ := b.Backend().Audit(context.Background(), tui.AuditFilter{Text: "fleet HALT (global) from host ha", Limit: 5}); len(rows) > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if rows, _ := b.Backend().Audit(context.Background(), tui.AuditFilter{Text: "fleet HALT (global) from host ha", Limit: 5}); len(rows) == 0 {
		t.Fatal("host b's trail has no record of the mirrored, signed halt")
	}
	for time.Now().Before(deadline) { // each host's whole trail is in the stream
		na, _ := a.rt.DB.LastSeq(context.Background())
		nb, _ := b.rt.DB.LastSeq(context.Background())
		tail, err := a.fleet.f.ReadAuditTail(context.Background(), 0)
		if err == nil && len(tail.Entries) >= int(na+nb) {
			for _, c := range a.fleet.f.CheckAudit(context.Background(), tail, RehashEvent, nil) {
				if c.Mark != fleet.MarkOK {
					t.Errorf("%s seq %d: %s %s", c.Host, c.Seq, c.Mark, c.Why)
				}
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the hosts' trails did not reach the fleet's stream")
}

// TestSessionFleetAlertAudited: a resume a peer signed for a HALT it did not make is
// ignored, audited as a fleet_alert on the host that ignored it, and shown on its screen.
func TestSessionFleetAlertAudited(t *testing.T) {
	tf := newTestFleet(t)
	tf.serve(t)
	a := fleetSession(t, tf, "ha")
	b := fleetSession(t, tf, "hb")
	deadline := time.Now().Add(10 * time.Second)
	for !(a.fleet.f.Connected() && b.fleet.f.Connected()) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // both mirrors are watching
	if err := a.Backend().Halt(context.Background(), "key H"); err != nil {
		t.Fatal(err)
	}
	for !halt.IsGloballyHalted(b.rt.Root) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	path := filepath.Join(t.TempDir(), "hc.creds")
	if err := os.WriteFile(path, tf.creds(t, "hc"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := fleet.Connect(fleet.Options{URL: tf.ns.ClientURL(), Creds: path})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.PublishHalt(context.Background(), live.GlobalScope, fleet.HaltValue{Halted: false, By: "mallory", Reason: "all clear", At: time.Now().Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	for time.Now().Before(deadline) {
		rows, _ := b.Backend().Audit(context.Background(), tui.AuditFilter{Text: AuditFleetAlert, Limit: 5})
		if v := b.Backend().Snapshot(context.Background()).Fleet; len(rows) > 0 && v != nil && len(v.Alerts) > 0 {
			if !halt.IsGloballyHalted(b.rt.Root) {
				t.Fatal("hc's resume cleared ha's HALT on hb")
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("hb's trail and screen have no fleet_alert for the ignored resume")
}

// TestFleetSinkProbes: the fleet's audit wrappers pass the gate's probe on to the store
// (DV15: no record, no trade), so a fleet does not turn the check off.
func TestFleetSinkProbes(t *testing.T) {
	s := fleetSession(t, newTestFleet(t), "ha")
	p, ok := s.gate.Audit.(live.AuditProber)
	if !ok {
		t.Fatalf("the gate's audit sink %T cannot be probed", s.gate.Audit)
	}
	if err := p.ProbeAudit(context.Background()); err != nil {
		t.Fatalf("probe: %v", err)
	}
	s.rt.DB.Close()
	if err := p.ProbeAudit(context.Background()); err == nil {
		t.Fatal("probe of a closed store passed through the fleet sink")
	}
}
