package session

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"cockpit/readmodel"

	"cockpit/fleet"
	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/money"
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

// fleetSession opens a session whose config joins the fleet at port as host, and runs it.
func fleetSession(t *testing.T, port int, host string) *Session {
	t.Helper()
	home := t.TempDir()
	cfg := fmt.Sprintf("[fleet]\nurl = \"nats://127.0.0.1:%d\"\nhost = %q\n", port, host)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
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
// the other host's gate, whose trail records the mirrored halt.
func TestSessionFleet(t *testing.T) {
	port := fleetPort(t)
	a := fleetSession(t, port, "ha")
	if d := a.buyForTest(); d.Reason != live.ReasonFleetUnavailable || d.Forwarded {
		t.Fatalf("no fleet server: got %s %s, want fleet_unavailable", d.Outcome, d.Reason)
	}
	if v := a.Backend().Snapshot(context.Background()).Fleet; v == nil || v.OK {
		t.Fatalf("snapshot fleet = %+v, want down", v)
	}
	ns, err := fleet.Serve(fleet.ServeOptions{Port: port, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Shutdown()
	b := fleetSession(t, port, "hb")
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
		if rows, _ := b.Backend().Audit(context.Background(), readmodel.AuditFilter{Text: "fleet HALT", Limit: 5}); len(rows) > 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("host b's trail has no record of the mirrored halt")
}

// TestFleetSinkProbes: the fleet's audit wrappers pass the gate's probe on to the store
// (DV15: no record, no trade), so a fleet does not turn the check off.
func TestFleetSinkProbes(t *testing.T) {
	port := fleetPort(t)
	s := fleetSession(t, port, "ha")
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
