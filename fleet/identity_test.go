package fleet_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"cockpit/fleet"
	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/live/livetest"
)

// TestFleetServerRefusesWithoutCredentials: a server with an authority lets in no client
// without credentials its account signed — not an anonymous one, not one with a token.
func TestFleetServerRefusesWithoutCredentials(t *testing.T) {
	ns := serve(t)
	for _, opt := range []nats.Option{nats.Name("anonymous"), nats.Token(strings.Repeat("a", 64))} {
		nc, err := nats.Connect(ns.ClientURL(), opt)
		if err == nil {
			nc.Close()
			t.Fatal("a client without credentials was let in")
		}
		if !strings.Contains(strings.ToLower(err.Error()), "authorization") {
			t.Errorf("err = %v, want an authorization violation", err)
		}
	}
	other, err := fleet.NewAuthority() // another fleet's credentials
	if err != nil {
		t.Fatal(err)
	}
	c, err := other.Issue("h1")
	if err != nil {
		t.Fatal(err)
	}
	id, err := fleet.ParseIdentity(c.Data)
	if err != nil {
		t.Fatal(err)
	}
	f, err := fleet.Connect(fleet.Options{URL: ns.ClientURL(), Identity: id})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	time.Sleep(200 * time.Millisecond)
	if f.Connected() {
		t.Error("credentials another authority signed were let in")
	}
}

// TestFleetHostPermissions: with its own credentials a host may not write another host's
// heartbeat or audit subject, the peer list, nor purge or delete the audit stream or a
// bucket: the server refuses each (a permission violation) and nothing changes.
func TestFleetHostPermissions(t *testing.T) {
	ns := serve(t)
	ctx := context.Background()
	h1 := connect(t, ns, "h1")
	if err := h1.PutBeat(ctx, fleet.Beat{State: "ACTIVE", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	nc, v := ns.raw(t, "h2")
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	short := func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, 300*time.Millisecond) }
	hosts, err := js.KeyValue(ctx, fleet.HostBucket)
	if err != nil {
		t.Fatal(err)
	}
	peers, err := js.KeyValue(ctx, fleet.PeerBucket)
	if err != nil {
		t.Fatal(err)
	}
	audit, err := js.Stream(ctx, fleet.AuditStream)
	if err != nil {
		t.Fatal(err)
	}
	attempts := []struct {
		name, subject string
		do            func(context.Context) error
	}{
		{"another host's heartbeat", "$KV.cockpit_hosts.h1", func(c context.Context) error {
			_, err := hosts.Put(c, "h1", []byte(`{"host":"h1","state":"ACTIVE"}`))
			return err
		}},
		{"another host's audit", "cockpit.audit.h1", func(c context.Context) error {
			_, err := js.Publish(c, "cockpit.audit.h1", []byte(`{"host":"h1"}`))
			return err
		}},
		{"the peer list", "$KV.cockpit_peers.h2", func(c context.Context) error {
			_, err := peers.Put(c, "h2", []byte(`{}`))
			return err
		}},
		{"a purge of the audit stream", "$JS.API.STREAM.PURGE." + fleet.AuditStream, func(c context.Context) error { return audit.Purge(c) }},
		{"a deleted audit stream", "$JS.API.STREAM.DELETE." + fleet.AuditStream, func(c context.Context) error {
			return js.DeleteStream(c, fleet.AuditStream)
		}},
		{"a deleted day bucket", "$JS.API.STREAM.DELETE.KV_" + fleet.DayBucket, func(c context.Context) error {
			return js.DeleteKeyValue(c, fleet.DayBucket)
		}},
	}
	for _, a := range attempts {
		c, cancel := short()
		err := a.do(c)
		cancel()
		if err == nil {
			t.Errorf("%s: the server took it", a.name)
		}
	}
	time.Sleep(100 * time.Millisecond)
	for _, a := range attempts {
		if !v.saw(a.subject) {
			t.Errorf("%s: no permission violation for %s", a.name, a.subject)
		}
	}
	beats, err := h1.Hosts(ctx)
	if err != nil || len(beats) != 1 || beats[0].Instance != h1.Instance() {
		t.Errorf("hosts = %+v, %v; want h1's own beat only", beats, err)
	}
	if _, err := (&fleet.Days{F: h1}).Count(ctx, "paper", "2026-06-01"); err != nil {
		t.Errorf("the day bucket after the attempts: %v", err)
	}
}

// TestFleetForgedResumeIgnored is the issue's first repro: with a host's credentials (or the
// nats CLI holding them) a resume is put in the halt bucket — unsigned, claiming a ghost host;
// then signed by a real peer that did not make the HALT. Neither clears a HALT anywhere, the
// agent's orders stay denied, and each is alerted; the resume of the host that halted does.
func TestFleetForgedResumeIgnored(t *testing.T) {
	ns := serve(t)
	fa, alA := connectAlerting(t, ns, "h1")
	fb, alB := connectAlerting(t, ns, "h2")
	a := newHost(t, fa, "paper", livetest.Epoch)
	b := newHost(t, fb, "paper", livetest.Epoch)
	mirrored(t, a)
	_, evB := mirrored(t, b)
	time.Sleep(150 * time.Millisecond)
	if _, err := halt.Trip(a.root, live.HaltSentinel, live.GlobalScope, "alice", "stop everything", time.Now()); err != nil {
		t.Fatal(err)
	}
	livetest.WaitFor(t, evB, "the halt on h2", func(e fleet.HaltEvent) bool { return e.Halted && e.Unverified == "" })

	nc, _ := ns.raw(t, "h3") // a real peer's credentials, as the nats CLI would hold them
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := js.KeyValue(context.Background(), fleet.HaltBucket)
	if err != nil {
		t.Fatal(err)
	}
	ghost, _ := json.Marshal(fleet.HaltValue{Halted: false, By: "ghost", Reason: "all clear", At: time.Now().Add(time.Minute), Host: "ghost", Instance: "fi_ghost0000000000"})
	if _, err := kv.Put(context.Background(), "global", ghost); err != nil {
		t.Fatal(err)
	}
	for _, al := range []*alerts{alA, alB} {
		al.wait(t, fleet.AlertResumeIgnored, `"ghost" ignored`)
	}
	h3 := connect(t, ns, "h3") // and a resume h3 signs, of a HALT h3 did not make
	if err := h3.PublishHalt(context.Background(), live.GlobalScope, fleet.HaltValue{Halted: false, By: "mallory", Reason: "resume", At: time.Now().Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	alA.wait(t, fleet.AlertResumeIgnored, `"h3" ignored: the HALT here was made by "alice" on this host`)
	alB.wait(t, fleet.AlertResumeIgnored, `"h3" ignored: the HALT here was made by host "h1"`)
	time.Sleep(1200 * time.Millisecond) // a poll of the bucket has run too
	for _, h := range []*host{a, b} {
		if !halt.IsGloballyHalted(h.root) {
			t.Fatalf("%s: the forged resume cleared the HALT", h.name)
		}
		if d := h.buy(); d.Reason != live.ReasonHalted || d.Forwarded {
			t.Fatalf("%s after the forged resume: %s %s forwarded=%v, want halted", h.name, d.Outcome, d.Reason, d.Forwarded)
		}
	}
	if _, err := halt.Clear(a.root, live.HaltSentinel, live.GlobalScope); err != nil { // h1's own operator resumes
		t.Fatal(err)
	}
	livetest.WaitFor(t, evB, "h1's resume on h2", func(e fleet.HaltEvent) bool { return !e.Halted && e.Host == "h1" })
	if d := b.buy(); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("h2 after h1's resume: %s %s", d.Outcome, d.Message())
	}
}

// TestFleetUnsignedHaltAppliedAndAlerted: a halt nobody known signed still halts (it only
// stops orders) but is alerted and marked unverified.
func TestFleetUnsignedHaltAppliedAndAlerted(t *testing.T) {
	ns := serve(t)
	fb, alB := connectAlerting(t, ns, "h2")
	b := newHost(t, fb, "paper", livetest.Epoch)
	_, evB := mirrored(t, b)
	time.Sleep(150 * time.Millisecond)
	nc, _ := ns.raw(t, "h3")
	js, _ := jetstream.New(nc)
	kv, err := js.KeyValue(context.Background(), fleet.HaltBucket)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := json.Marshal(fleet.HaltValue{Halted: true, By: "x", Reason: "unsigned", At: time.Now(), Host: "ghost"})
	if _, err := kv.Put(context.Background(), "global", v); err != nil {
		t.Fatal(err)
	}
	e := livetest.WaitFor(t, evB, "the unsigned halt", func(e fleet.HaltEvent) bool { return e.Halted })
	if e.Unverified == "" || !halt.IsGloballyHalted(b.root) {
		t.Errorf("event %+v, halted %v; want an applied halt marked unverified", e, halt.IsGloballyHalted(b.root))
	}
	if len(alB.of(fleet.AlertHaltUnverified)) == 0 {
		t.Error("no halt_unverified alert")
	}
}

// TestFleetLoweredCountRefused is the issue's second repro: h1 fills the fleet's day (20 of
// 20); a forged `kv put cockpit_days paper.<day> "0 forged"`, a replay of an earlier signed
// value, a delete and a purge of the key each try to lower it, and h2 (whose own journal is
// empty) tries an order after each. Each is refused and alerted, the count is restored, and
// no broker gets a 21st order; a host that knows no trusted count after a purge denies
// fleet_unavailable rather than start from zero.
func TestFleetLoweredCountRefused(t *testing.T) {
	ns := serve(t)
	h := newHost(t, connect(t, ns, "h1"), "paper", livetest.Epoch)
	for i := range 20 {
		if d := h.buy(); d.Outcome != live.OutcomeAccepted {
			t.Fatalf("order %d: %s %s", i+1, d.Outcome, d.Message())
		}
	}
	day := live.UTCDay(livetest.Epoch)
	key := "paper." + day
	fb, alB := connectAlerting(t, ns, "h2")
	b := newHost(t, fb, "paper", livetest.Epoch)
	nc, _ := ns.raw(t, "h4")
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	kv, err := js.KeyValue(ctx, fleet.DayBucket)
	if err != nil {
		t.Fatal(err)
	}
	hist, err := kv.History(ctx, key)
	if err != nil || len(hist) < 5 {
		t.Fatalf("history: %d entries, %v", len(hist), err)
	}
	replay := hist[2].Value() // a real, signed count of 3
	forgeries := []struct {
		name string
		do   func() error
	}{
		{"0 forged", func() error { _, err := kv.Put(ctx, key, []byte("0 forged")); return err }},
		{"a replayed signed count", func() error { _, err := kv.Put(ctx, key, replay); return err }},
		{"a delete", func() error { return kv.Delete(ctx, key) }},
		{"a purge", func() error { return kv.Purge(ctx, key) }},
	}
	for _, fg := range forgeries {
		if err := fg.do(); err != nil {
			t.Fatalf("%s: %v", fg.name, err)
		}
		before := len(alB.of(fleet.AlertCountRefused))
		if d := b.buy(); d.Forwarded || d.Breach == nil || d.Breach.Limit != live.LimitTradesPerDay {
			t.Fatalf("h2 after %s: %s %s forwarded=%v, want the day cap", fg.name, d.Outcome, d.Reason, d.Forwarded)
		}
		if n, err := h.days.Count(ctx, "paper", day); err != nil || n < 20 {
			t.Fatalf("after %s: count %d, %v; want at least 20", fg.name, n, err)
		}
		if len(alB.of(fleet.AlertCountRefused)) == before {
			t.Errorf("after %s: no count_refused alert on h2", fg.name)
		}
	}
	if got := h.broker.Placed() + b.broker.Placed(); got != 20 {
		t.Errorf("brokers placed %d, want 20", got)
	}
	// A purge leaves no history: a host that never saw the count cannot restore it and denies.
	if err := kv.Purge(ctx, key); err != nil {
		t.Fatal(err)
	}
	fresh := newHost(t, connect(t, ns, "h3"), "paper", livetest.Epoch)
	if d := fresh.buy(); d.Forwarded || d.Reason != live.ReasonFleetUnavailable {
		t.Fatalf("a fresh host after a purge: %s %s forwarded=%v, want fleet_unavailable", d.Outcome, d.Reason, d.Forwarded)
	}
	if _, err := fresh.days.Reserve(ctx, "paper", day); err == nil || !strings.Contains(err.Error(), "no trusted count") {
		t.Errorf("fresh Reserve err = %v, want a refusal naming the missing trusted count", err)
	}
}

// TestFleetReleaseLowersCount: a host's signed release is the one write that lowers the
// count, and other hosts build on it without an alert.
func TestFleetReleaseLowersCount(t *testing.T) {
	ns := serve(t)
	fa, alA := connectAlerting(t, ns, "h1")
	fb, alB := connectAlerting(t, ns, "h2")
	a, b := &fleet.Days{F: fa}, &fleet.Days{F: fb}
	ctx := context.Background()
	for range 3 {
		if _, err := a.Reserve(ctx, "paper", "2026-06-01"); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Release(ctx, "paper", "2026-06-01"); err != nil {
		t.Fatal(err)
	}
	n, err := b.Reserve(ctx, "paper", "2026-06-01")
	if err != nil || n != 2 {
		t.Fatalf("h2's Reserve after h1's release = %d, %v; want 2", n, err)
	}
	if x := append(alA.of(fleet.AlertCountRefused), alB.of(fleet.AlertCountRefused)...); len(x) != 0 {
		t.Errorf("alerts on honest writes: %+v", x)
	}
}
