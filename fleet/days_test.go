package fleet_test

import (
	"context"
	"fmt"
	"testing"

	"cockpit/live"
	"cockpit/live/livetest"
)

// TestFleetCapExactAcrossHosts: 4 hosts (each its own root, journal and gate) send 10 orders
// each at once against one day cap of 20; the fleet forwards exactly 20, 100 times over.
func TestFleetCapExactAcrossHosts(t *testing.T) {
	runs := 100
	if testing.Short() {
		runs = 10
	}
	ns := serve(t)
	conns := make([]*host, 4)
	for i := range conns {
		conns[i] = &host{f: connect(t, ns, fmt.Sprintf("h%d", i+1))}
	}
	for run := range runs {
		key := fmt.Sprintf("cap-%d", run)
		hosts := make([]*host, len(conns))
		for i, c := range conns {
			hosts[i] = newHost(t, c.f, key, livetest.Epoch)
		}
		var got tally
		burst(hosts, 10, &got)
		placed := 0
		for _, h := range hosts {
			placed += h.broker.Placed()
		}
		if got.accepted != 20 || placed != 20 || got.capped != 20 || got.other != nil || got.fleet != 0 {
			t.Fatalf("run %d: accepted %d, broker placed %d, capped %d, fleet_unavailable %d, other %v; want 20 accepted, 20 placed, 20 capped",
				run, got.accepted, placed, got.capped, got.fleet, got.other)
		}
		n, err := hosts[0].days.Count(context.Background(), key, live.UTCDay(livetest.Epoch))
		if err != nil || n != 20 {
			t.Fatalf("run %d: fleet count = %d, %v; want 20", run, n, err)
		}
	}
}

// TestFleetRejectReleasesSlot: a broker rejection gives the slot back, so the fleet's count
// stays the number of accepted orders.
func TestFleetRejectReleasesSlot(t *testing.T) {
	ns := serve(t)
	h := newHost(t, connect(t, ns, "h1"), "paper", livetest.Epoch)
	day := live.UTCDay(livetest.Epoch)
	if d := h.buy(); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("first order: %s %s", d.Outcome, d.Message())
	}
	h.broker.reject = true
	if d := h.buy(); d.Reason != live.ReasonBrokerReject {
		t.Fatalf("rejected order: got %s %s, want broker_rejected", d.Outcome, d.Reason)
	}
	if n, err := h.days.Count(context.Background(), "paper", day); err != nil || n != 1 {
		t.Fatalf("fleet count after a reject = %d, %v; want 1", n, err)
	}
}

// TestFleetBrokerKeysEncoded: a broker key that is not a bucket token (a dot, a space) still
// counts, and two such keys do not share a count.
func TestFleetBrokerKeysEncoded(t *testing.T) {
	ns := serve(t)
	f := connect(t, ns, "h1")
	a := newHost(t, f, "my broker.v2", livetest.Epoch)
	b := newHost(t, f, "my broker", livetest.Epoch)
	for _, h := range []*host{a, a, b} {
		if d := h.buy(); d.Outcome != live.OutcomeAccepted {
			t.Fatalf("%s: %s %s", h.key, d.Outcome, d.Message())
		}
	}
	day := live.UTCDay(livetest.Epoch)
	for _, c := range []struct {
		key  string
		want int
	}{{"my broker.v2", 2}, {"my broker", 1}} {
		if n, err := a.days.Count(context.Background(), c.key, day); err != nil || n != c.want {
			t.Errorf("count %q = %d, %v; want %d", c.key, n, err, c.want)
		}
	}
}

// TestFleetCountsChildren: an order the broker accepted with two legs it created (a bracket)
// takes three slots in the fleet, as the journal counts it here.
func TestFleetCountsChildren(t *testing.T) {
	ns := serve(t)
	h := newHost(t, connect(t, ns, "h1"), "paper", livetest.Epoch)
	h.broker.children = 2
	if d := h.buy(); d.Outcome != live.OutcomeAccepted || d.Count != 3 {
		t.Fatalf("got %s count %d, want accepted count 3", d.Outcome, d.Count)
	}
	if n, err := h.days.Count(context.Background(), "paper", live.UTCDay(livetest.Epoch)); err != nil || n != 3 {
		t.Fatalf("fleet count = %d, %v; want 3", n, err)
	}
}
