package fleet_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"cockpit/fleet"
	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/live/livetest"
)

// TestFleetSameHostNameRootsMirror: two roots whose fleet host name is the same (the
// default, os.Hostname, on one machine) still see each other's halts: a change is told
// apart by the root's instance id, not by the host name (review of issue 16).
func TestFleetSameHostNameRootsMirror(t *testing.T) {
	ns := serve(t)
	a := newHost(t, connect(t, ns, "samehost"), "paper", livetest.Epoch)
	b := newHost(t, connect(t, ns, "samehost"), "paper", livetest.Epoch)
	mirrored(t, a)
	_, evB := mirrored(t, b)
	time.Sleep(150 * time.Millisecond) // both watches are up
	if _, err := halt.Trip(a.root, live.HaltSentinel, live.GlobalScope, "operator", "stop everything", time.Now()); err != nil {
		t.Fatal(err)
	}
	livetest.WaitFor(t, evB, "a's halt on b", func(e fleet.HaltEvent) bool { return e.Halted })
	if at, _ := halt.ReadSentinel(b.root, live.HaltSentinel, live.GlobalScope); at == nil {
		t.Fatal("b's sentinel missing after a's HALT")
	}
	if d := b.buy(); d.Forwarded {
		t.Fatalf("b.buy forwarded after a's HALT: %s %s", d.Outcome, d.Reason)
	}
}

// TestFleetSameHostNameReconcileKeepsOthersHalt: a root whose mirror (re)starts does not take
// another root's halt under the same host name for its own "resumed while away" halt, so it
// publishes no resume that would clear it on every host.
func TestFleetSameHostNameReconcileKeepsOthersHalt(t *testing.T) {
	ns := serve(t)
	a := newHost(t, connect(t, ns, "samehost"), "paper", livetest.Epoch)
	b := newHost(t, connect(t, ns, "samehost"), "paper", livetest.Epoch)
	c := newHost(t, connect(t, ns, "other"), "paper", livetest.Epoch)
	mirrored(t, b)
	_, evC := mirrored(t, c)
	time.Sleep(150 * time.Millisecond)
	if _, err := halt.Trip(b.root, live.HaltSentinel, live.GlobalScope, "operator", "B stops the fleet", time.Now()); err != nil {
		t.Fatal(err)
	}
	livetest.WaitFor(t, evC, "b's halt on c", func(e fleet.HaltEvent) bool { return e.Halted })
	mirrored(t, a)                      // a's cockpit starts: its mirror reconciles
	time.Sleep(1500 * time.Millisecond) // the reconcile and a poll have run (a wrong resume would be out)
	hv, err := c.f.Halts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !hv["global"].Halted {
		t.Errorf("bucket = %+v, want b's halt", hv["global"])
	}
	if !halt.IsGloballyHalted(c.root) || !halt.IsGloballyHalted(b.root) {
		t.Errorf("halted: b %v c %v, want both", halt.IsGloballyHalted(b.root), halt.IsGloballyHalted(c.root))
	}
}

// TestFleetHostNameClashRefused: a second root with another cockpit's (live) host name is
// refused: its reservations fail (the gate denies fleet_unavailable), Health says why, and it
// does not overwrite the other's heartbeat; the same root coming back (same instance) is not.
func TestFleetHostNameClashRefused(t *testing.T) {
	ns := serve(t)
	ctx := context.Background()
	first := connect(t, ns, "desk")
	if err := first.PutBeat(ctx, fleet.Beat{State: "ACTIVE", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	dup := newHost(t, connect(t, ns, "desk"), "paper", livetest.Epoch)
	_, err := dup.days.Reserve(ctx, "paper", "2026-06-01")
	if !errors.Is(err, fleet.ErrHostTaken) {
		t.Fatalf("Reserve err = %v, want ErrHostTaken", err)
	}
	if d := dup.buy(); d.Forwarded || d.Reason != live.ReasonFleetUnavailable {
		t.Errorf("buy: forwarded %v reason %q, want a fleet_unavailable denial", d.Forwarded, d.Reason)
	}
	if ok, why := dup.f.Health(); ok || !strings.Contains(why, "give each root its own [fleet] host") {
		t.Errorf("Health = %v %q, want the clash", ok, why)
	}
	if err := dup.f.PutBeat(ctx, fleet.Beat{State: "ACTIVE", At: time.Now()}); !errors.Is(err, fleet.ErrHostTaken) {
		t.Errorf("PutBeat err = %v, want ErrHostTaken", err)
	}
	hosts, err := first.Hosts(ctx)
	if err != nil || len(hosts) != 1 || hosts[0].Instance != first.Instance() {
		t.Errorf("hosts = %+v %v, want only the first cockpit's beat", hosts, err)
	}
	again, err := fleet.Connect(fleet.Options{URL: ns.ClientURL(), Identity: ns.identity(t, "desk"), Instance: first.Instance()})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if _, err := (&fleet.Days{F: again}).Reserve(ctx, "paper", "2026-06-01"); err != nil {
		t.Errorf("the same root after a restart: Reserve err = %v, want none", err)
	}
}
