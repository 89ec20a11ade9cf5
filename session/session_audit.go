package session

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/store"
)

// auditLatch tells the session, once, that the gate's halt latch tripped.
type auditLatch struct {
	once sync.Once
	ch   chan struct{} // made with the session
}

// guardAudit wires the gate's halt latch to the engine (the agent pauses for good, the screen
// and the bus say why) and runs the store's start-up check: a failed integrity check, a broken
// chain or a chain that disagrees with its anchor starts the session HALTED audit_unavailable
// with the first bad event named.
func (s *Session) guardAudit() {
	if msg := s.integrityProblem(); msg != "" {
		s.gate.TripAuditHalt(errors.New(msg))
		close(s.pages.done) // no page check: the latch denies every order
		return
	}
	s.checkPages()
}

// onAuditHalt is the gate's OnHalt: the agent pauses for good, the screen and the bus say
// why, and a headless run ends (UntilLatched).
func (s *Session) onAuditHalt(h gate.AuditHalt) {
	s.rt.Log.Error("trading halted: audit unavailable", "detail", h.Detail)
	if s.eng != nil { // the gate is made before the engine
		s.eng.AuditHalted(h)
	}
	s.auditHalt.once.Do(func() { close(s.auditHalt.ch) })
}

// integrityProblem says what the start-up check of the chain found, with the first bad event
// ("" if none).
func (s *Session) integrityProblem() string { return problemOf(s.integrity) }

// problemOf says what a start-up check found, with the first bad event ("" if none).
func problemOf(in store.Integrity) string {
	switch {
	case in.Problem == "":
		return ""
	case in.BadSeq > 0:
		return fmt.Sprintf("%s — first bad event %d; archive the database with `cockpit audit rotate --reason …`", in.Problem, in.BadSeq)
	}
	return in.Problem + " — archive the database with `cockpit audit rotate --reason …`"
}

// notStarted explains a start-up failure by the store's check when that failed too.
func (s *Session) notStarted(err error) error {
	if msg := s.integrityProblem(); msg != "" {
		return fmt.Errorf("%w\nthe audit store failed its start-up check (HALTED %s): %s", err, live.ReasonAuditUnavailable, msg)
	}
	return err
}

// UntilLatched ends ctx when the gate's audit halt latch trips (a headless run stops and
// exits non-zero).
func (s *Session) UntilLatched(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-s.auditHalt.ch:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}
