package fleet_test

import (
	"context"
	"sync/atomic"
	"testing"

	"cockpit/fleet"
	"cockpit/live"
	"cockpit/live/livetest"
)

// TestFleetLegSlotWithLostAnswerKept: a bracket leg's slot (counted after the broker created
// it) whose write landed but whose answer was lost is never given back by a later Reserve's
// settle: the fleet count stays at the orders the broker has (review of issue 16).
func TestFleetLegSlotWithLostAnswerKept(t *testing.T) {
	ns := serve(t)
	h := newHost(t, connect(t, ns, "h1"), "paper", livetest.Epoch)
	h.broker.children = 1 // each order comes with one leg
	var writes atomic.Int32
	fleet.SetLoseAnswer(h.days, func(delta int) bool { return delta > 0 && writes.Add(1) == 2 }) // the leg's write
	if d := h.buy(); !d.Forwarded {
		t.Fatalf("first buy: %s %s", d.Outcome, d.Reason)
	}
	fleet.SetLoseAnswer(h.days, nil)
	if d := h.buy(); !d.Forwarded {
		t.Fatalf("second buy: %s %s", d.Outcome, d.Reason)
	}
	day := live.UTCDay(livetest.Epoch)
	got, err := h.days.Count(context.Background(), "paper", day)
	if err != nil {
		t.Fatal(err)
	}
	if want := 4; got != want { // two orders and their two legs are at the broker
		t.Errorf("fleet count = %d, want %d (a sent leg's slot was given back)", got, want)
	}
}
