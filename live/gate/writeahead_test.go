package gate_test

import (
	"context"
	"fmt"
	"testing"

	"cockpit/live"
	"cockpit/live/auditsink"
)

// probingStore is a journal and audit sink in one, as store.DB is: it counts separate probes
// and write-ahead rows written with the probe folded in.
type probingStore struct {
	live.MemoryJournal
	auditsink.Memory
	probes, folded int
	failProbe      bool
}

func (s *probingStore) ProbeAudit(context.Context) error {
	s.probes++
	return nil
}

func (s *probingStore) ProbesFor(sink live.AuditSink) bool {
	p, ok := sink.(*probingStore)
	return ok && p == s
}

func (s *probingStore) BeginProbed(ctx context.Context, e live.JournalEntry) error {
	s.folded++
	if s.failProbe {
		return fmt.Errorf("audit probe: disk full: %w", live.ErrAuditProbe)
	}
	return s.Begin(ctx, e)
}

// TestProbeRidesTheWriteAhead: when the journal is the audit sink's own store, the audit
// probe runs inside the write-ahead row's transaction (no separate probe), also behind a
// MultiSink; a failing probe still denies audit_unavailable, latches, and sends nothing.
func TestProbeRidesTheWriteAhead(t *testing.T) {
	for _, multi := range []bool{false, true} {
		t.Run(fmt.Sprint("multi=", multi), func(t *testing.T) {
			f := newFixture(t, "")
			s := &probingStore{}
			f.gate.Journal, f.gate.Audit = s, s
			if multi {
				f.gate.Audit = live.MultiSink{s, f.audit}
			}
			if d := f.buy("AAPL", "100", ""); d.Outcome != live.OutcomeAccepted {
				t.Fatalf("got %s, want accepted", d.Message())
			}
			if s.probes != 0 || s.folded != 1 {
				t.Fatalf("separate probes %d, folded write-aheads %d; want 0 and 1", s.probes, s.folded)
			}
			s.failProbe = true
			d := f.buy("MSFT", "100", "")
			if d.Forwarded || d.Reason != live.ReasonAuditUnavailable || f.broker.placed != 1 {
				t.Fatalf("failing probe: forwarded %v reason %s placed %d; want a DENY %s and nothing sent",
					d.Forwarded, d.Reason, f.broker.placed, live.ReasonAuditUnavailable)
			}
			if h, ok := f.gate.Latched(); !ok || h.Reason != live.ReasonAuditUnavailable {
				t.Fatalf("latch = %+v %v, want %s", h, ok, live.ReasonAuditUnavailable)
			}
		})
	}
}

// TestOtherSinkIsStillProbed: a journal that is not the audit sink's store leaves the sink to
// its own probe.
func TestOtherSinkIsStillProbed(t *testing.T) {
	f := newFixture(t, "")
	s, other := &probingStore{}, &probingStore{}
	f.gate.Journal, f.gate.Audit = s, other
	if d := f.buy("AAPL", "100", ""); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("got %s, want accepted", d.Message())
	}
	if other.probes != 1 || s.folded != 0 {
		t.Fatalf("probes of the sink %d, folded write-aheads %d; want 1 and 0", other.probes, s.folded)
	}
}
