package session

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/money"
	"cockpit/store"
)

// testSession opens a paper session with no agent on a fresh home.
func testSession(t *testing.T) *Session {
	t.Helper()
	s, err := Open(testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestScreenHaltIsGlobal: H on the screen halts everything on the root (live/HALT); the
// palette's broker halt writes only live/<broker>/HALT (issue 10 item 5).
func TestScreenHaltIsGlobal(t *testing.T) {
	s := testSession(t)
	be := newBackend(s)
	if err := be.Halt(context.Background(), "key H"); err != nil {
		t.Fatal(err)
	}
	if !halt.IsGloballyHalted(s.rt.Root) {
		t.Fatal("H did not write the global live/HALT")
	}
	if a, _ := halt.ReadSentinel(s.rt.Root, live.HaltSentinel, live.BrokerScope(s.key)); a != nil {
		t.Errorf("H wrote the broker's HALT too: %+v", a)
	}
	if err := be.HaltBroker(context.Background(), "palette"); err != nil {
		t.Fatal(err)
	}
	if a, _ := halt.ReadSentinel(s.rt.Root, live.HaltSentinel, live.BrokerScope(s.key)); a == nil || a.Reason != "palette" {
		t.Errorf("halt broker: broker sentinel %+v, want reason palette", a)
	}
}

// waitEvent waits (bounded) for an audit event of type kind by actor kind actor.
func waitEvent(t *testing.T, db *store.DB, kind, actor string) store.Event {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		evs, _ := db.Events(context.Background(), store.Filter{Type: kind})
		for _, e := range evs {
			if e.ActorKind == actor {
				return e
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no %s event by %s within 5s", kind, actor)
	return store.Event{}
}

// TestExternalSentinelChangesAreAudited: a HALT created by `touch` and removed by `rm` while
// the session runs leaves halt_tripped and halt_cleared records by external; the screen's own
// halt is recorded once, as the operator's.
func TestExternalSentinelChangesAreAudited(t *testing.T) {
	s := testSession(t)
	s.watcher.Poll = 50 * time.Millisecond
	states := s.watcher.Subscribe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	wait := func(halted bool) {
		t.Helper()
		deadline := time.After(5 * time.Second)
		for {
			select {
			case st := <-states:
				if st.Halted == halted {
					return
				}
			case <-deadline:
				t.Fatalf("no state halted=%v", halted)
			}
		}
	}
	wait(false)
	path := s.rt.Root.SentinelPath(live.HaltSentinel, "")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	e := waitEvent(t, s.rt.DB, live.KindHaltTripped, string(live.ActorExternal))
	if !strings.Contains(e.Summary, "HALT (global) appeared") {
		t.Errorf("summary %q", e.Summary)
	}
	wait(true)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, s.rt.DB, live.KindHaltCleared, string(live.ActorExternal))
	wait(false)
	be := newBackend(s)
	if err := be.Halt(context.Background(), "key H"); err != nil {
		t.Fatal(err)
	}
	wait(true)
	if err := be.Resume(context.Background(), "checked"); err != nil {
		t.Fatal(err)
	}
	wait(false)
	evs, _ := s.rt.DB.Events(context.Background(), store.Filter{})
	var kinds []string
	for _, e := range evs {
		if e.Type == live.KindHaltTripped || e.Type == live.KindHaltCleared {
			kinds = append(kinds, e.ActorKind+":"+e.Type)
		}
	}
	want := "operator:halt_cleared operator:halt_tripped external:halt_cleared external:halt_tripped" // newest first
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("halt records %q, want %q", got, want)
	}
}

// TestLatchHaltsTheSession: the watcher's latch halts the session's gate and shows HALTED on
// the screen whatever the files say; a resume on the screen clears it, audited.
func TestLatchHaltsTheSession(t *testing.T) {
	s := testSession(t)
	be := newBackend(s)
	s.latch.Set("halt watcher error: watch /x: permission denied")
	s.sentries.latched("halt watcher error: watch /x: permission denied")
	waitEvent(t, s.rt.DB, live.KindHaltTripped, string(live.ActorSystem))
	if snap := be.Snapshot(context.Background()); snap.State != live.Halted || !strings.Contains(snap.HaltReason, "permission denied") {
		t.Errorf("snapshot state %s (%q), want HALTED with the watcher's reason", snap.State, snap.HaltReason)
	}
	in := live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity}
	n := money.MustParse("10")
	in.NotionalUSD = &n
	if d := s.gate.Submit(context.Background(), gate.Submission{Broker: s.broker, Intent: &in}); d.Reason != live.ReasonHalted || d.Forwarded {
		t.Fatalf("order while latched: %s %s", d.Verdict, d.Reason)
	}
	if err := be.Resume(context.Background(), "watch restored"); err != nil {
		t.Fatal(err)
	}
	if on, _ := s.latch.Halted(); on {
		t.Fatal("resume left the latch set")
	}
	if d := s.gate.Submit(context.Background(), gate.Submission{Broker: s.broker, Intent: &in}); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("order after resume: %s %s", d.Verdict, d.Reason)
	}
}
