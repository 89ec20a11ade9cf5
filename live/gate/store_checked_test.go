package gate_test

import (
	"errors"
	"testing"
	"time"

	"cockpit/live"
)

// TestOrdersWaitForTheStoreCheck (issue 32): while the store's start-up check of its pages
// runs, an order waits for it and reaches the broker only once it has passed; one that waits
// longer than StoreWait is DENY halted, saying why, and never forwarded; a check that failed
// (it sets the latch before it finishes) denies the order audit_unavailable.
func TestOrdersWaitForTheStoreCheck(t *testing.T) {
	t.Run("passes", func(t *testing.T) {
		f := newFixture(t, "")
		checked := make(chan struct{})
		f.gate.StoreChecked = checked
		sentBefore := make(chan int, 1)
		go func() {
			time.Sleep(50 * time.Millisecond) // the order is waiting by now (or the gate did not wait)
			f.broker.mu.Lock()
			sentBefore <- f.broker.placed
			f.broker.mu.Unlock()
			close(checked)
		}()
		d := f.buy("AAPL", "10", "")
		if n := <-sentBefore; n != 0 {
			t.Errorf("%d orders reached the broker before the check passed, want 0", n)
		}
		if d.Outcome != live.OutcomeAccepted {
			t.Errorf("order once the check passed: %s %s, want accepted", d.Verdict, d.Reason)
		}
	})
	t.Run("not finished", func(t *testing.T) {
		f := newFixture(t, "")
		f.gate.StoreChecked, f.gate.StoreWait = make(chan struct{}), 20*time.Millisecond
		d := f.buy("AAPL", "10", "")
		if d.Reason != live.ReasonHalted || d.Forwarded || d.Denial == nil || d.Denial.Fields["latched"] != "the audit store's start-up check has not finished" {
			t.Errorf("order while the check never ends: %s %s forwarded=%v %+v, want DENY halted naming the check", d.Verdict, d.Reason, d.Forwarded, d.Denial)
		}
		if got := len(f.audit.Records()); got != 1 {
			t.Errorf("audit records: %d, want the denial's", got)
		}
	})
	t.Run("failed", func(t *testing.T) {
		f := newFixture(t, "")
		checked := make(chan struct{})
		f.gate.StoreChecked = checked
		f.gate.TripAuditHalt(errors.New("database integrity check failed: page 7 is never used"))
		close(checked)
		if d := f.buy("AAPL", "10", ""); d.Reason != live.ReasonAuditUnavailable || d.Forwarded {
			t.Errorf("order after a failed check: %s %s forwarded=%v, want DENY audit_unavailable", d.Verdict, d.Reason, d.Forwarded)
		}
	})
}
