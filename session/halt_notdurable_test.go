package session

import (
	"context"
	"errors"
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
