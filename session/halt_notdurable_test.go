package session

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"cockpit/live"
	"cockpit/live/atomicfile"
	"cockpit/live/halt"
	"cockpit/store"
)

// TestHaltNotDurableIsAudited: when the HALT file's fsync fails the file is in place and
// halts all the same, so H still pauses the agent and writes its halt_tripped record (it wrote
// none, and a second H then found the file and recorded nothing either), and says the halt is
// in force but not known to be on disk.
func TestHaltNotDurableIsAudited(t *testing.T) {
	tests := []struct {
		name string
		do   func(*Backend) error
		kind live.Sentinel
	}{
		{"halt", func(b *Backend) error { return b.Halt(context.Background(), "key H") }, live.HaltSentinel},
		{"halt broker", func(b *Backend) error { return b.HaltBroker(context.Background(), "palette") }, live.HaltSentinel},
		{"reduce only", func(b *Backend) error { return b.ReduceOnly(context.Background(), "palette") }, live.ReduceOnlySentinel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := testSession(t)
			be := newBackend(s)
			restore := atomicfile.FailSyncs(syscall.EIO)
			err := tt.do(be)
			restore()
			if !errors.Is(err, halt.ErrNotDurable) {
				t.Fatalf("err: got %v, want one that is halt.ErrNotDurable", err)
			}
			if got := halt.StateOf(s.rt.Root, s.key); got == live.Active {
				t.Errorf("state after %s: got %s, want it stopped", tt.name, got)
			}
			evs, err := s.rt.DB.Events(context.Background(), store.Filter{Type: live.KindHaltTripped})
			if err != nil {
				t.Fatal(err)
			}
			if len(evs) != 1 || evs[0].ActorKind != string(live.ActorOperator) {
				t.Errorf("halt_tripped records: got %d (%+v), want 1 by the operator", len(evs), evs)
			}
			if tt.kind == live.HaltSentinel && !s.eng.Paused() {
				t.Error("agent not paused after a HALT that is in force")
			}
		})
	}
}

// TestFlattenGoesOnWhenHaltNotDurable: the screen's flatten (F) halts the broker,
// then cancels and closes. When the HALT file's fsync fails, the HALT is in place and in
// force (halt.InForce), so the flatten goes on, as `cockpit flatten` does (it returned at
// once with a VerifyErr: nothing cancelled, no position closed).
func TestFlattenGoesOnWhenHaltNotDurable(t *testing.T) {
	s := testSession(t)
	ctx := context.Background()
	placeResting(t, s)
	restore := atomicfile.FailSyncs(syscall.EIO)
	rep := s.Backend().Flatten(WithOperator(ctx, "tui:flattener"), nil)
	restore()
	open, err := s.broker.OpenOrders(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Flat() || len(open) != 0 {
		t.Errorf("flatten with a HALT in force but not durable: report %q (VerifyErr %q), %d orders still resting; want the flatten carried out",
			rep.Summary(), rep.VerifyErr, len(open))
	}
}

// TestQuitAuditsAHaltNotWrittenAsAnError: when on_quit "halt" cannot write the HALT file, its
// halt_tripped record says so (outcome error), never accepted: the trail said the broker was
// halted on quit while no file stopped its orders.
func TestQuitAuditsAHaltNotWrittenAsAnError(t *testing.T) {
	s := testSession(t)
	s.onQuit = "halt"
	// A broker directory where no file can be created (read-only to a non-root user; immutable
	// here, as the tests may run as root): Trip fails, and nothing halts the broker.
	dir := filepath.Dir(s.rt.Root.SentinelPath(live.HaltSentinel, s.key))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
			t.Skipf("chattr +i: %v %s", err, out)
		}
		t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
	} else if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	} else {
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
	}
	if _, err := halt.Trip(s.rt.Root, live.HaltSentinel, live.BrokerScope(s.key), "probe", "x", s.rt.Now()); halt.InForce(err) {
		t.Skipf("Trip still works in %s: %v", dir, err)
	}
	s.Quit("test quit")
	if halt.IsHalted(s.rt.Root, s.key) {
		t.Skip("the broker is halted after all; the setup did not make Trip fail")
	}
	evs, err := s.rt.DB.Events(context.Background(), store.Filter{Type: live.KindHaltTripped})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 || evs[0].Outcome != string(live.OutcomeError) {
		t.Errorf("halt_tripped records: got %+v, want one with outcome error", evs)
	}
	for _, e := range evs {
		if e.Outcome == string(live.OutcomeAccepted) {
			t.Errorf("halt_tripped recorded (%s, %q) for an on_quit halt whose HALT file was never written; the broker is %s",
				e.Outcome, e.Summary, halt.StateOf(s.rt.Root, s.key))
		}
	}
}
