package halt

import (
	"testing"
	"time"

	"cockpit/live"
)

// TestLatchHoldOutlivesResume (issue 28): the one halt latch carries both kinds of in-memory
// halt; an operator's resume (Clear) releases the watcher's kind only, never the audit's hold.
func TestLatchHoldOutlivesResume(t *testing.T) {
	var l Latch
	if on, _ := l.Halted(); on {
		t.Fatal("zero latch halted")
	}
	if !l.Set("watch failed") || l.Set("again") {
		t.Fatal("Set: want true once, then false")
	}
	at := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	if !l.Hold(live.ReasonAuditUnavailable, "disk full", at) || l.Hold(live.ReasonAuditUnavailable, "later", at) {
		t.Fatal("Hold: want true once, then false")
	}
	select {
	case <-l.HeldC():
	default:
		t.Fatal("HeldC not closed after Hold")
	}
	if on, why := l.Halted(); !on || why != "HALTED audit_unavailable: disk full" {
		t.Fatalf("Halted = %v %q, want the hold's message", on, why)
	}
	if on, why := l.Resumable(); !on || why != "watch failed" {
		t.Fatalf("Resumable = %v %q, want the watcher's reason", on, why)
	}
	if !l.Clear() {
		t.Fatal("Clear of a set latch = false")
	}
	if on, _ := l.Resumable(); on {
		t.Fatal("resumable after Clear")
	}
	if on, why := l.Halted(); !on || why != "HALTED audit_unavailable: disk full" {
		t.Fatalf("after Clear: Halted = %v %q, want the hold to stand", on, why)
	}
	if h, ok := l.Held(); !ok || h.Detail != "disk full" || !h.At.Equal(at) {
		t.Fatalf("Held = %+v %v", h, ok)
	}
	var nilLatch *Latch
	if on, _ := nilLatch.Halted(); on {
		t.Fatal("nil latch halted")
	}
}
