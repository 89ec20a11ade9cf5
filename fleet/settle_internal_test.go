package fleet

import (
	"context"
	"testing"

	"cockpit/live"
)

// TestSettleGivesBackALandedSlot: a reservation whose answer was lost but whose write landed
// (its id follows the revision it expected) is given back on the next Reserve; one that lost
// the race to another host's write changes nothing.
func TestSettleGivesBackALandedSlot(t *testing.T) {
	ns, err := Serve(ServeOptions{Port: -1, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Shutdown()
	f, err := Connect(Options{URL: ns.ClientURL(), Host: "h1"})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	d := &Days{F: f}
	const day = "2026-06-01"
	if _, err := d.Reserve(ctx, "paper", day); err != nil { // count 1
		t.Fatal(err)
	}
	kv, err := f.bucket(ctx, DayBucket)
	if err != nil {
		t.Fatal(err)
	}
	key := dayKey("paper", day)
	write := func(id string) uint64 { // a write as add makes it, answer "lost"
		e, err := kv.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		n, _, _ := parseCount(e.Value())
		if _, err := kv.Update(ctx, key, f.encodeCount(key, count{N: n + 1, ID: id, Op: opReserve, Prev: n, Base: e.Revision()}), e.Revision()); err != nil {
			t.Fatal(err)
		}
		return e.Revision()
	}
	cases := []struct {
		name   string
		landed bool
		want   int // the count the next Reserve sees
	}{
		{"landed", true, 1},
		{"lost the race", false, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before, err := d.Count(ctx, "paper", day)
			if err != nil {
				t.Fatal(err)
			}
			id := live.RandomID("rsv")
			writer := id
			if !c.landed {
				writer = live.RandomID("other") // another host's write took the revision
			}
			rev := write(writer)
			d.doubt(key, id, rev, 1)
			n, err := d.Reserve(ctx, "paper", day)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := n, before-1+c.want; got != want {
				t.Errorf("Reserve after settling saw %d, want %d", got, want)
			}
			if d.Unsure() != 0 {
				t.Errorf("unsure = %d after settling, want 0", d.Unsure())
			}
		})
	}
}

// TestSettleReleasesOnce: a landed reservation in doubt is given back once; when that
// release's own answer is lost too, the next settle does not give the slot back again
// (review of issue 16: the count went below the orders sent).
func TestSettleReleasesOnce(t *testing.T) {
	ns, err := Serve(ServeOptions{Port: -1, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Shutdown()
	f, err := Connect(Options{URL: ns.ClientURL(), Host: "h1"})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	d := &Days{F: f}
	const day = "2026-06-01"
	for range 5 { // five orders sent and counted
		if _, err := d.Reserve(ctx, "paper", day); err != nil {
			t.Fatal(err)
		}
	}
	d.loseAnswer = func(delta int) bool { return delta > 0 } // the sixth lands, its answer is lost: denied
	if _, err := d.Reserve(ctx, "paper", day); err == nil {
		t.Fatal("Reserve with a lost answer: want an error")
	}
	d.loseAnswer = func(delta int) bool { return delta < 0 } // settle's release lands, its answer is lost
	d.settle(ctx)
	d.loseAnswer = nil
	n, err := d.Reserve(ctx, "paper", day)
	if err != nil {
		t.Fatal(err)
	}
	if n != 5 {
		t.Errorf("count before the next order = %d, want 5 (the orders sent)", n)
	}
	if u := d.Unsure(); u != 0 {
		t.Errorf("Unsure = %d, want 0", u)
	}
}
