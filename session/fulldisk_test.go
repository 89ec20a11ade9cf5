package session

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"

	"cockpit/live"
	"cockpit/live/atomicfile"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/money"
)

// buy submits a small market buy through the session's gate.
func (s *Session) buy(t *testing.T) gate.Decision {
	t.Helper()
	n := money.MustParse("100")
	in := live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity, NotionalUSD: &n}
	return s.gate.Submit(context.Background(), gate.Submission{Broker: s.broker, Intent: &in, Actor: live.Agent("test", s.id)})
}

// TestAuditHaltOnAFullDiskSurvivesARestart is issue 27 item 6's disk-full repro: the audit
// trips HALTED audit_unavailable while no new file can be written. The global HALT is on disk
// all the same (the reserve renamed into place), so after space is freed the next session
// starts HALTED and denies orders until an operator resumes (today no HALT file was written
// and the restart traded).
func TestAuditHaltOnAFullDiskSurvivesARestart(t *testing.T) {
	home := t.TempDir()
	s, err := Open(testOptions(home))
	if err != nil {
		t.Fatal(err)
	}
	restore := atomicfile.FailWrites(syscall.ENOSPC)
	s.gate.TripAuditHalt(errors.New("database or disk is full"))
	restore()
	s.Close()
	a, _ := halt.ReadSentinel(live.Root(home), live.HaltSentinel, live.GlobalScope)
	if a == nil {
		t.Fatal("no global HALT on disk after an audit_unavailable trip on a full disk")
	}
	if want := string(live.ReasonAuditUnavailable); !strings.HasPrefix(a.Reason, want) {
		t.Errorf("HALT reason %q, want it to start with %s", a.Reason, want)
	}
	again, err := Open(testOptions(home))
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if d := again.buy(t); d.Reason != live.ReasonHalted || d.Forwarded {
		t.Fatalf("order after the restart: %s %s forwarded=%v, want DENY halted", d.Verdict, d.Reason, d.Forwarded)
	}
	if err := again.Backend().Resume(WithOperator(context.Background(), "tui:op"), "disk freed"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(halt.ReservePath(live.Root(home))); err != nil {
		t.Errorf("no reserve HALT file after the resume: %v", err)
	}
	if d := again.buy(t); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("order after the resume: %s %s, want accepted", d.Verdict, d.Reason)
	}
}
