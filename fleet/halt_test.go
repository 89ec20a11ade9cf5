package fleet_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"cockpit/fleet"
	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/livetest"
)

// mirrored runs a host's halt watcher and fleet mirror; remote events arrive on the channel.
func mirrored(t testing.TB, h *host) (*fleet.Mirror, <-chan fleet.HaltEvent) {
	t.Helper()
	events := make(chan fleet.HaltEvent, 16)
	m := &fleet.Mirror{F: h.f, Root: h.root, OnRemote: func(e fleet.HaltEvent) { events <- e }, LocalOnly: []string{"cockpit"}}
	w := &halt.Watcher{Root: h.root, Brokers: []string{h.key}, Poll: 50 * time.Millisecond, OnSentinel: func(c halt.SentinelChange) { m.Local(c) }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 2)
	go func() { w.Run(ctx); done <- struct{}{} }()
	go func() { m.Run(ctx); done <- struct{}{} }()
	t.Cleanup(func() { cancel(); <-done; <-done })
	return m, events
}

// TestFleetHaltStopsOtherHosts: a HALT file on one host stops orders on the others (through
// their own sentinel), a resume there resumes them, each mirrored change is reported to
// OnRemote (the audit on every host), and a mirrored sentinel is not published again.
func TestFleetHaltStopsOtherHosts(t *testing.T) {
	ns := serve(t)
	a := newHost(t, connect(t, ns, "h1"), "paper", livetest.Epoch)
	b := newHost(t, connect(t, ns, "h2"), "paper", livetest.Epoch)
	c := newHost(t, connect(t, ns, "h3"), "paper", livetest.Epoch)
	_, _ = mirrored(t, a)
	_, evB := mirrored(t, b)
	_, evC := mirrored(t, c)
	time.Sleep(100 * time.Millisecond) // the watches are up (a missed start is reconciled anyway)
	if d := b.buy(); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("before the halt: %s %s", d.Outcome, d.Message())
	}
	start := time.Now()
	if _, err := halt.Trip(a.root, live.HaltSentinel, live.GlobalScope, "operator", "stop everything", start); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []<-chan fleet.HaltEvent{evB, evC} {
		e := livetest.WaitFor(t, ev, "mirrored halt", func(e fleet.HaltEvent) bool { return e.Halted })
		if e.Host != "h1" || e.Reason != "stop everything" || !e.Scope.Global {
			t.Errorf("mirrored halt = %+v, want global from h1 with the reason", e)
		}
	}
	t.Logf("halt propagation h1 → h2, h3 (file to file, through fsnotify): %v", time.Since(start))
	for _, h := range []*host{b, c} {
		if d := h.buy(); d.Reason != live.ReasonHalted || d.Forwarded {
			t.Fatalf("%s after the halt: %s %s, want halted", h.name, d.Outcome, d.Reason)
		}
		at, _ := halt.ReadSentinel(h.root, live.HaltSentinel, live.GlobalScope)
		if at == nil || at.By != "operator@h1" {
			t.Errorf("%s sentinel attribution = %+v, want by operator@h1", h.name, at)
		}
	}
	time.Sleep(200 * time.Millisecond) // let b and c's watchers see their mirrored files
	halts, err := a.f.Halts(context.Background())
	if err != nil || halts["global"].Host != "h1" || !halts["global"].Halted {
		t.Fatalf("bucket = %+v, %v; want the global halt by h1 (a mirror must not re-publish it)", halts, err)
	}
	if _, err := halt.Clear(a.root, live.HaltSentinel, live.GlobalScope); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []<-chan fleet.HaltEvent{evB, evC} {
		livetest.WaitFor(t, ev, "mirrored resume", func(e fleet.HaltEvent) bool { return !e.Halted && e.Host == "h1" })
	}
	if d := b.buy(); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("after the resume: %s %s", d.Outcome, d.Message())
	}
}

// TestFleetServerStopsMidSession: the server stops → orders DENY fleet_unavailable; a local
// halt still halts and a flatten still flattens; the halt is published once the server is
// back; after the resume orders go again.
func TestFleetServerStopsMidSession(t *testing.T) {
	tf := restartable(t)
	start := func() func() { return tf.start(t) }
	stop := start()
	url := tf.url()
	a := newHost(t, connectAt(t, tf, url, "h1"), "paper", livetest.Epoch)
	b := newHost(t, connectAt(t, tf, url, "h2"), "paper", livetest.Epoch)
	_, _ = mirrored(t, a)
	_, evB := mirrored(t, b)
	if d := a.buy(); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("before the stop: %s %s", d.Outcome, d.Message())
	}
	stop()
	if d := a.buy(); d.Reason != live.ReasonFleetUnavailable || d.Forwarded {
		t.Fatalf("server stopped: got %s %s forwarded=%v, want fleet_unavailable", d.Outcome, d.Reason, d.Forwarded)
	}
	if ok, why := a.f.Health(); ok {
		t.Errorf("health with the server stopped = ok (%s), want not ok", why)
	}
	if _, err := halt.Trip(a.root, live.HaltSentinel, live.BrokerScope("paper"), "operator", "offline halt", time.Now()); err != nil {
		t.Fatal(err)
	}
	if d := a.buy(); d.Reason != live.ReasonHalted {
		t.Fatalf("local halt with the fleet down: got %s, want halted", d.Reason)
	}
	rep := a.gate.Flatten(context.Background(), a.broker, "paper", gate.FlattenOptions{ClosePositions: true,
		Actor: live.Operator("test", "s1"), Why: "fleet down", Settle: time.Second})
	if !rep.Flat() || len(rep.Errors) > 0 {
		t.Fatalf("flatten with the fleet down: %+v, want flat", rep)
	}
	stop = start()
	defer stop()
	// The restarted server recovers its streams first (slow under -race): wait until it counts.
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if _, err := a.days.Count(context.Background(), "paper", live.UTCDay(livetest.Epoch)); err == nil {
			break
		}
	}
	// h2 reconnects on its own back-off, then re-watches: bounded generously, not timed.
	livetest.WaitForWithin(t, evB, "the offline halt after the reconnect", 60*time.Second, func(e fleet.HaltEvent) bool { return e.Halted && e.Host == "h1" })
	if d := b.buy(); d.Reason != live.ReasonHalted {
		t.Fatalf("h2 after the reconnect: got %s, want halted", d.Reason)
	}
	if _, err := halt.Clear(a.root, live.HaltSentinel, live.BrokerScope("paper")); err != nil {
		t.Fatal(err)
	}
	livetest.WaitFor(t, evB, "the resume", func(e fleet.HaltEvent) bool { return !e.Halted })
	for _, h := range []*host{a, b} {
		if d := h.buy(); d.Outcome != live.OutcomeAccepted {
			t.Fatalf("%s after the reconnect and resume: %s %s", h.name, d.Outcome, d.Message())
		}
	}
	n, err := a.days.Count(context.Background(), "paper", live.UTCDay(livetest.Epoch))
	if err != nil || n != 3 {
		t.Errorf("fleet count = %d, %v; want 3 (the denied orders took no slot)", n, err)
	}
}

func itoa(n int) string {
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

// TestFleetHosts: heartbeats list every host.
func TestFleetHosts(t *testing.T) {
	ns := serve(t)
	ctx := context.Background()
	var fs []*fleet.Fleet
	for _, n := range []string{"h2", "h1"} {
		f := connect(t, ns, n)
		fs = append(fs, f)
		if err := f.PutBeat(ctx, fleet.Beat{State: "ACTIVE", Orders: 3, LastEvent: "order_placed", At: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	hosts, err := fs[0].Hosts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, h := range hosts {
		names = append(names, h.Host)
	}
	if !sort.StringsAreSorted(names) || len(names) != 2 || names[0] != "h1" {
		t.Fatalf("hosts = %v, want [h1 h2]", names)
	}
}

// TestFleetLocalOnlyHaltStaysLocal: a halt by a LocalOnly author (cockpit's on_quit) and its
// removal are not published; an operator's is.
func TestFleetLocalOnlyHaltStaysLocal(t *testing.T) {
	ns := serve(t)
	h := newHost(t, connect(t, ns, "h1"), "paper", livetest.Epoch)
	m := &fleet.Mirror{F: h.f, Root: h.root, LocalOnly: []string{"cockpit"}}
	change := func(by string, exists bool) {
		scope := live.BrokerScope("paper")
		path := h.root.SentinelPath(live.HaltSentinel, "paper")
		if exists {
			if _, err := halt.Trip(h.root, live.HaltSentinel, scope, by, "x", time.Now()); err != nil {
				t.Fatal(err)
			}
		} else if _, err := halt.Clear(h.root, live.HaltSentinel, scope); err != nil {
			t.Fatal(err)
		}
		m.Local(halt.SentinelChange{Sentinel: live.HaltSentinel, Scope: scope, Path: path, Exists: exists, At: time.Now()})
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	change("cockpit", true)
	change("cockpit", false)
	time.Sleep(300 * time.Millisecond)
	if halts, err := h.f.Halts(ctx); err != nil || len(halts) != 0 {
		t.Fatalf("after a local-only halt and resume: bucket %+v, %v; want empty", halts, err)
	}
	change("alice", true)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if halts, _ := h.f.Halts(ctx); halts["broker.paper"].Halted && halts["broker.paper"].By == "alice" {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("an operator's halt was not published")
}

// TestFleetMirrorReconciles: a host whose mirror is not running while its operator removes
// its own halt publishes the resume when the mirror starts again; and a remote resume never
// clears a LocalOnly halt (cockpit's own on_quit halt stays until this host clears it).
func TestFleetMirrorReconciles(t *testing.T) {
	ns := serve(t)
	a := newHost(t, connect(t, ns, "h1"), "paper", livetest.Epoch)
	b := newHost(t, connect(t, ns, "h2"), "paper", livetest.Epoch)
	_, evB := mirrored(t, b)
	ctx := context.Background()
	scope := live.BrokerScope("paper")
	// h1 halts and publishes, without a mirror running (as `cockpit halt` does).
	if _, err := halt.Trip(a.root, live.HaltSentinel, scope, "alice", "drill", time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := a.f.PublishHalt(ctx, scope, fleet.HaltValue{Halted: true, By: "alice", Reason: "drill", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	livetest.WaitFor(t, evB, "the halt on h2", func(e fleet.HaltEvent) bool { return e.Halted })
	if _, err := halt.Clear(a.root, live.HaltSentinel, scope); err != nil { // resumed while h1's mirror is off
		t.Fatal(err)
	}
	mirrored(t, a) // h1's cockpit starts: its mirror reconciles
	livetest.WaitFor(t, evB, "the resume on h2", func(e fleet.HaltEvent) bool { return !e.Halted && e.Host == "h1" })
	if halt.IsHalted(b.root, "paper") {
		t.Fatal("h2 still halted after h1's offline resume was reconciled")
	}

	// A LocalOnly halt on h2 (its on_quit) survives h1's later resume of the same scope.
	if _, err := halt.Trip(b.root, live.HaltSentinel, scope, "cockpit", "on_quit", time.Now().Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := a.f.PublishHalt(ctx, scope, fleet.HaltValue{Halted: false, By: "alice", Reason: "again", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if !halt.IsHalted(b.root, "paper") {
		t.Fatal("a remote resume cleared h2's own local-only halt")
	}
}

// TestFleetOfflineResumeWins: a host that resumes while the fleet is down keeps its resume
// when it reconnects (the bucket's older halt is not written back) and publishes it.
func TestFleetOfflineResumeWins(t *testing.T) {
	tf := restartable(t)
	start := func() func() { return tf.start(t) }
	stop := start()
	url := tf.url()
	a := newHost(t, connectAt(t, tf, url, "h1"), "paper", livetest.Epoch)
	b := connectAt(t, tf, url, "h2")
	_, evA := mirrored(t, a)
	scope := live.BrokerScope("paper")
	time.Sleep(100 * time.Millisecond)
	if err := b.PublishHalt(context.Background(), scope, fleet.HaltValue{Halted: true, By: "bob", Reason: "x", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	livetest.WaitFor(t, evA, "the halt on h1", func(e fleet.HaltEvent) bool { return e.Halted })
	stop()
	time.Sleep(100 * time.Millisecond)
	if _, err := halt.Clear(a.root, live.HaltSentinel, scope); err != nil { // h1 resumes, offline
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // h1's watcher has seen the removal
	stop = start()
	defer stop()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if h, err := b.Halts(context.Background()); err == nil && !h["broker.paper"].Halted && h["broker.paper"].Host == "h1" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond) // a poll of the bucket has run too
	if halt.IsHalted(a.root, "paper") {
		t.Fatal("h1's offline resume was undone by the bucket's older halt")
	}
	if h, _ := b.Halts(context.Background()); h["broker.paper"].Halted {
		t.Fatalf("bucket = %+v, want h1's resume", h["broker.paper"])
	}
}
