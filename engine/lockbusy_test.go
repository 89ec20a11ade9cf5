package engine_test

import (
	"testing"
	"time"

	"cockpit/internal/enginetest"
	"cockpit/live"
	"cockpit/live/counter"
)

// TestLockBusyIsARetry (issue 27 item 7): an order denied lock_busy (another submission held
// the lock for the gate's whole wait) carries a retry hint and does not count as a denial:
// six of them leave the agent unpaused, and the order goes once the lock is free.
func TestLockBusyIsARetry(t *testing.T) {
	f := enginetest.New(t)
	f.Gate.LockWait = 0 // the reference's non-blocking lock: busy answers at once
	l, err := counter.TrySubmitLock(f.Root, live.PaperBroker)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		r := f.Call("place_order", enginetest.Buy("AAPL", "100"))
		if r.Code != live.ReasonLockBusy || r.RetryAfter != time.Second {
			t.Fatalf("order %d under a held lock: %s retry %s, want lock_busy retry 1s", i+1, r.Code, r.RetryAfter)
		}
	}
	l.Unlock()
	if r := f.Call("place_order", enginetest.Buy("AAPL", "100")); !r.OK() {
		t.Errorf("order once the lock is free: %s %s, want ok (lock_busy is not a denial of the agent)", r.Code, r.Detail)
	}
}
