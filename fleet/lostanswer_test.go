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

// TestFleetCloseSettlesALostReservation: a reservation whose write landed but whose answer
// was lost denies its order (fleet_unavailable: never sent uncounted); a host that then stops
// gives that slot back on Close, so the fleet's count is the orders sent (it stayed one high
// until the host's next order before Close settled).
func TestFleetCloseSettlesALostReservation(t *testing.T) {
	ns := serve(t)
	f := connect(t, ns, "h1")
	h := newHostCap(t, f, "paper", livetest.Epoch, 6)
	fleet.SetLoseAnswer(h.days, func(delta int) bool { return delta > 0 })
	if d := h.buy(); d.Forwarded {
		t.Fatalf("an order whose slot's answer was lost went out: %s %s", d.Outcome, d.Reason)
	}
	fleet.SetLoseAnswer(h.days, nil)
	if err := h.days.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	day := live.UTCDay(livetest.Epoch)
	if taken, err := fleet.Taken(context.Background(), f, "paper", day); err != nil || taken != 0 {
		t.Errorf("slots taken after Close = %d, %v; want 0 (no order was sent)", taken, err)
	}
}
