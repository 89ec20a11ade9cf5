package fleet_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"cockpit/fleet"
	"cockpit/live"
	"cockpit/live/livetest"
)

// newHostCap is newHost with a day cap of limit orders.
func newHostCap(tb testing.TB, f *fleet.Fleet, key string, now time.Time, limit int) *host {
	tb.Helper()
	h := newHost(tb, f, key, now)
	doc := strings.Replace(livetest.MandateDoc, `"max_trades_per_day": 20`, fmt.Sprintf(`"max_trades_per_day": %d`, limit), 1)
	livetest.Commit(tb, h.root, key, doc, now)
	return h
}

// untilCapped sends orders from each host until the fleet says the day is full.
func untilCapped(tb testing.TB, hosts []*host, t *tally) {
	tb.Helper()
	var wg sync.WaitGroup
	for _, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 500 {
				d := h.buy()
				t.add(d)
				if d.Breach != nil && d.Breach.Limit == live.LimitTradesPerDay {
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestFleetLeaseRaceToCapExact: 4 hosts race to a small cap (6 and 40), each sending until the
// fleet says the day is full; the fleet accepts exactly the cap, the brokers see exactly the
// cap, and once the hosts close (settling writes in doubt, returning their leases) the count is
// the orders sent — or above it only when a give-back's own answer was lost (never below).
func TestFleetLeaseRaceToCapExact(t *testing.T) {
	runs := 10
	if testing.Short() {
		runs = 3
	}
	ns := serve(t)
	conns := make([]*fleet.Fleet, 4)
	for i := range conns {
		conns[i] = connect(t, ns, fmt.Sprintf("h%d", i+1))
	}
	day := live.UTCDay(livetest.Epoch)
	for _, limit := range []int{6, 40} {
		for run := range runs {
			key := fmt.Sprintf("race-%d-%d", limit, run)
			hosts := make([]*host, len(conns))
			for i, f := range conns {
				hosts[i] = newHostCap(t, f, key, livetest.Epoch, limit)
			}
			var got tally
			untilCapped(t, hosts, &got)
			placed := 0
			for _, h := range hosts {
				placed += h.broker.Placed()
			}
			// (a fleet_unavailable denial, a write past the gate's 2 s on a loaded machine, is
			// fail-closed and does not change what the hosts fill)
			if got.accepted != limit || placed != limit || got.other != nil {
				t.Fatalf("cap %d run %d: accepted %d, broker placed %d, fleet_unavailable %d, other %v; want %d accepted and placed",
					limit, run, got.accepted, placed, got.fleet, got.other, limit)
			}
			for _, h := range hosts {
				if err := h.days.Close(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			taken, err := fleet.Taken(context.Background(), conns[0], key, day)
			if err != nil || taken < limit {
				t.Fatalf("cap %d run %d: slots taken after the hosts closed = %d, %v; want %d (the orders sent; fewer would let the fleet pass the cap)", limit, run, taken, err, limit)
			}
			if taken > limit { // the safe direction: a give-back whose own answer was lost (a loaded machine) is never made twice
				t.Logf("cap %d run %d: slots taken after the hosts closed = %d, %d above the orders sent (fleet_unavailable denials: %d)", limit, run, taken, taken-limit, got.fleet)
			}
		}
	}
}

// TestFleetLeaseFarFromCap: far from the cap one order leases a block; the rest of the block
// is handed out without a write, the count shown (status, the screen) is the orders sent, not
// the slots leased, and closing gives the unused slots back.
func TestFleetLeaseFarFromCap(t *testing.T) {
	ns := serve(t)
	a := newHostCap(t, connect(t, ns, "h1"), "paper", livetest.Epoch, 1000)
	fo, alerts := connectAlerting(t, ns, "h2")
	other := &fleet.Days{F: fo} // another host's reader (status)
	ctx, day := context.Background(), live.UTCDay(livetest.Epoch)
	for i := range 3 {
		if d := a.buy(); d.Outcome != live.OutcomeAccepted {
			t.Fatalf("order %d: %s %s", i, d.Outcome, d.Message())
		}
	}
	taken, err := fleet.Taken(ctx, a.f, "paper", day)
	if err != nil {
		t.Fatal(err)
	}
	if pooled := fleet.Pooled(a.days, "paper", day); taken <= 3 || pooled != taken-3 {
		t.Fatalf("after 3 orders: slots taken %d, pooled %d; want a block leased (more than 3 taken, the rest pooled)", taken, pooled)
	}
	if n, err := a.days.Count(ctx, "paper", day); err != nil || n != 3 {
		t.Errorf("this host reads %d, %v; want 3 (orders sent, not leased)", n, err)
	}
	// Another host reads this host's usage key: the orders sent, not the slots leased.
	if n, err := other.Count(ctx, "paper", day); err != nil || n != 3 {
		t.Errorf("another host reads %d, %v; want 3 (orders sent, not the %d leased)", n, err, taken)
	}
	if err := a.days.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		d    *fleet.Days
	}{{"this host", a.days}, {"another host", other}} {
		if n, err := c.d.Count(ctx, "paper", day); err != nil || n != 3 {
			t.Errorf("after close %s reads %d, %v; want 3", c.name, n, err)
		}
	}
	if x := alerts.of(fleet.AlertCountRefused); len(x) != 0 { // a signed return is honest
		t.Errorf("another host refused an honest lease or return: %+v", x)
	}
	if taken, err := fleet.Taken(ctx, a.f, "paper", day); err != nil || taken != 3 {
		t.Errorf("slots taken after close = %d, %v; want 3", taken, err)
	}
	if n := fleet.Pooled(a.days, "paper", day); n != 0 {
		t.Errorf("pooled after close = %d, want 0", n)
	}
	if d := a.buy(); d.Outcome != live.OutcomeAccepted { // closed: one slot per write
		t.Fatalf("order after close: %s %s", d.Outcome, d.Message())
	}
	if taken, err := fleet.Taken(ctx, a.f, "paper", day); err != nil || taken != 4 {
		t.Errorf("slots taken after an order past close = %d, %v; want 4 (no new lease)", taken, err)
	}
}

// TestFleetLeaseIdleReturn: a lease left unused for the idle period is given back; one used
// just now is kept.
func TestFleetLeaseIdleReturn(t *testing.T) {
	ns := serve(t)
	a := newHostCap(t, connect(t, ns, "h1"), "paper", livetest.Epoch, 1000)
	fleet.SetLeaseTimes(a.days, time.Hour, 2*time.Hour) // the timer never fires in the test
	ctx, day := context.Background(), live.UTCDay(livetest.Epoch)
	if d := a.buy(); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("order: %s %s", d.Outcome, d.Message())
	}
	pooled := fleet.Pooled(a.days, "paper", day)
	if pooled == 0 {
		t.Fatal("no block was leased far from the cap")
	}
	fleet.ReturnIdleAt(a.days, "paper", day, time.Now()) // used just now: kept
	if got := fleet.Pooled(a.days, "paper", day); got != pooled {
		t.Errorf("pooled after a fresh use = %d, want %d", got, pooled)
	}
	fleet.ReturnIdleAt(a.days, "paper", day, time.Now().Add(time.Hour+time.Second))
	if got := fleet.Pooled(a.days, "paper", day); got != 0 {
		t.Errorf("pooled after the idle period = %d, want 0", got)
	}
	if taken, err := fleet.Taken(ctx, a.f, "paper", day); err != nil || taken != 1 {
		t.Errorf("slots taken after the idle return = %d, %v; want 1", taken, err)
	}
}

// TestFleetLeaseDayRoll: the first order of a new day gives the old day's lease back.
func TestFleetLeaseDayRoll(t *testing.T) {
	ns := serve(t)
	f := connect(t, ns, "h1")
	a := newHostCap(t, f, "paper", livetest.Epoch, 1000)
	next := newHostCap(t, f, "paper", livetest.Epoch.Add(24*time.Hour), 1000)
	next.days, next.gate.Days = a.days, a.days // one host, its clock past midnight
	ctx, day1, day2 := context.Background(), live.UTCDay(livetest.Epoch), live.UTCDay(livetest.Epoch.Add(24*time.Hour))
	for _, h := range []*host{a, next} {
		if d := h.buy(); d.Outcome != live.OutcomeAccepted {
			t.Fatalf("order: %s %s", d.Outcome, d.Message())
		}
	}
	if taken, err := fleet.Taken(ctx, f, "paper", day1); err != nil || taken != 1 {
		t.Errorf("day 1 slots taken after the roll = %d, %v; want 1 (its lease given back)", taken, err)
	}
	if n := fleet.Pooled(a.days, "paper", day1); n != 0 {
		t.Errorf("day 1 pooled after the roll = %d, want 0", n)
	}
	if n := fleet.Pooled(a.days, "paper", day2); n == 0 {
		t.Errorf("day 2 pooled = 0, want a new lease")
	}
}

// TestFleetLeaseCrashedHostNeverReused: a host that vanishes holding a lease leaves its unused
// slots counted: the other hosts fill only the rest of the day, a host joining later does not
// get them either, and the fleet never passes the cap.
func TestFleetLeaseCrashedHostNeverReused(t *testing.T) {
	ns := serve(t)
	const limit = 40
	ctx, day := context.Background(), live.UTCDay(livetest.Epoch)
	fa := connect(t, ns, "h1")
	a := newHostCap(t, fa, "paper", livetest.Epoch, limit)
	fleet.SetLeaseTimes(a.days, time.Hour, 2*time.Hour) // it never gets to give them back
	for range 3 {
		if d := a.buy(); d.Outcome != live.OutcomeAccepted {
			t.Fatalf("order: %s %s", d.Outcome, d.Message())
		}
	}
	held := fleet.Pooled(a.days, "paper", day)
	if held == 0 {
		t.Fatal("no block was leased far from the cap")
	}
	fa.Close() // the crash: no return
	b := newHostCap(t, connect(t, ns, "h2"), "paper", livetest.Epoch, limit)
	var got tally
	untilCapped(t, []*host{b}, &got)
	if want := limit - 3 - held; got.accepted != want || got.other != nil {
		t.Fatalf("the other host accepted %d (other %v), want %d: the crashed host's %d unused slots must stay counted",
			got.accepted, got.other, want, held)
	}
	late := newHostCap(t, connect(t, ns, "h3"), "paper", livetest.Epoch, limit)
	if d := late.buy(); d.Breach == nil || d.Breach.Limit != live.LimitTradesPerDay {
		t.Fatalf("a host joining later: %s %s, want a max_trades_per_day breach", d.Outcome, d.Reason)
	}
	if sent := 3 + got.accepted; sent > limit {
		t.Fatalf("orders sent %d, over the cap %d", sent, limit)
	}
	// The crashed host's unused slots read as not sent until its entry is stale; then as sent.
	if n, err := b.days.Count(ctx, "paper", day); err != nil || n != limit-held {
		t.Errorf("count = %d, %v; want %d (the orders sent)", n, err, limit-held)
	}
	if n, err := fleet.CountAt(ctx, b.days, "paper", day, time.Now().Add(time.Hour)); err != nil || n != limit {
		t.Errorf("count an hour later = %d, %v; want %d (a vanished host's lease reads as sent: the safe side)", n, err, limit)
	}
}

// TestFleetLeaseLostAnswerGivenBack: a lease whose answer was lost (the order is denied
// fleet_unavailable) is given back whole by the next settle.
func TestFleetLeaseLostAnswerGivenBack(t *testing.T) {
	ns := serve(t)
	a := newHostCap(t, connect(t, ns, "h1"), "paper", livetest.Epoch, 1000)
	ctx, day := context.Background(), live.UTCDay(livetest.Epoch)
	fleet.SetLoseAnswer(a.days, func(delta int) bool { return delta > 1 })
	if d := a.buy(); d.Reason != live.ReasonFleetUnavailable || d.Forwarded {
		t.Fatalf("order with a lost lease answer: %s %s forwarded=%v, want fleet_unavailable", d.Outcome, d.Reason, d.Forwarded)
	}
	fleet.SetLoseAnswer(a.days, nil)
	a.days.Settle(ctx)
	if taken, err := fleet.Taken(ctx, a.f, "paper", day); err != nil || taken != 0 {
		t.Errorf("slots taken after settling = %d, %v; want 0 (the whole block given back)", taken, err)
	}
	if n := fleet.Pooled(a.days, "paper", day); n != 0 {
		t.Errorf("pooled = %d, want 0 (a lease in doubt is never handed out)", n)
	}
}

// TestFleetLeaseForgedUsageIgnored: a usage key not signed by the host it names (another
// host's credentials put it) is not believed: the count falls back to what the host's own
// signed count write said, and the forger's figure never shows.
func TestFleetLeaseForgedUsageIgnored(t *testing.T) {
	ns := serve(t)
	a := newHostCap(t, connect(t, ns, "h1"), "paper", livetest.Epoch, 1000)
	other := &fleet.Days{F: connect(t, ns, "h2")}
	ctx, day := context.Background(), live.UTCDay(livetest.Epoch)
	for range 3 {
		if d := a.buy(); d.Outcome != live.OutcomeAccepted {
			t.Fatalf("order: %s %s", d.Outcome, d.Message())
		}
	}
	nc, _ := ns.raw(t, "h4")
	js, _ := jetstream.New(nc)
	kv, err := js.KeyValue(ctx, fleet.DayBucket)
	if err != nil {
		t.Fatal(err)
	}
	e, err := kv.Get(ctx, "paper."+day)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		N    int `json:"n"`
		Open map[string]struct {
			N  int    `json:"n"`
			ID string `json:"id"`
		} `json:"open"`
	}
	if err := json.Unmarshal(e.Value(), &c); err != nil {
		t.Fatal(err)
	}
	forged := fmt.Sprintf(`{"id":%q,"unused":0,"host":"h1","at":%d}`, c.Open["h1"].ID, time.Now().Unix())
	if _, err := kv.Put(ctx, "paper."+day+".use.h1", []byte(forged)); err != nil {
		t.Fatal(err)
	}
	want := c.N - c.Open["h1"].N // what h1's signed lease write said: 1 order sent
	if n, err := other.Count(ctx, "paper", day); err != nil || n != want {
		t.Errorf("count with a forged usage key = %d, %v; want %d (not the forger's %d)", n, err, want, c.N)
	}
}

// TestFleetWriteEchoNotCountedTwice: a count write that landed but answered as a lost race
// (JetStream's client published it again during an election, and the copy found the first)
// is not made a second time: the slots taken are the orders sent and the lease.
func TestFleetWriteEchoNotCountedTwice(t *testing.T) {
	for _, limit := range []int{20, 1000} { // one slot per write, and a lease
		t.Run(fmt.Sprint("cap ", limit), func(t *testing.T) {
			ns := serve(t)
			a := newHostCap(t, connect(t, ns, "h1"), "paper", livetest.Epoch, limit)
			ctx, day := context.Background(), live.UTCDay(livetest.Epoch)
			if d := a.buy(); d.Outcome != live.OutcomeAccepted { // the day's key exists
				t.Fatalf("first order: %s %s", d.Outcome, d.Message())
			}
			fleet.ReturnIdleAt(a.days, "paper", day, time.Now().Add(time.Hour)) // no lease left
			var once sync.Once
			fleet.SetEchoRace(a.days, func(delta int) bool {
				echo := false
				once.Do(func() { echo = delta > 0 })
				return echo
			})
			if d := a.buy(); d.Outcome != live.OutcomeAccepted {
				t.Fatalf("order: %s %s", d.Outcome, d.Message())
			}
			taken, err := fleet.Taken(ctx, a.f, "paper", day)
			if want := 2 + fleet.Pooled(a.days, "paper", day); err != nil || taken != want {
				t.Errorf("slots taken = %d, %v; want %d (the order and its lease, once)", taken, err, want)
			}
		})
	}
}
