package faults

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/livetest"
	"cockpit/live/money"
)

// TestHaltDuringBurstFlattenAndApprovals: four agents send orders as fast as they can, an
// approved over-cap order is retried alongside them, and HALT is written in the middle;
// then a flatten runs while the agents keep trying. No agent or approved order whose locked
// check came after the HALT file was written is forwarded; the flatten's closes (reduce-only,
// the operator's) go through and the account ends flat.
func TestHaltDuringBurstFlattenAndApprovals(t *testing.T) {
	root := durableRoot(t, roomyMandate("1000000", ""))
	db := openStore(t, root)
	defer db.Close()
	p := newPaper(t, nil)
	g := gateOn(db, root)
	var tripped atomic.Int64 // unix nanos once HALT is on disk
	var mu sync.Mutex
	var late []gate.Decision
	before, after := 0, 0
	g.OnDecision = func(d gate.Decision) {
		at := tripped.Load()
		mu.Lock()
		defer mu.Unlock()
		if at != 0 && d.StartedAt.UnixNano() > at {
			after++
		}
		// The locked check re-reads the sentinels: a forward locked after HALT was written is late.
		if at != 0 && !d.LockedAt.IsZero() && d.LockedAt.UnixNano() > at && d.Forwarded && (d.Order == nil || !d.Order.ReduceOnly) {
			late = append(late, d) // (the flatten's closes are reduce-only)
		}
		if at == 0 && d.Forwarded {
			before++
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var settled atomic.Int32 // agents that finished a submission begun after HALT
	agent := func(s func() gate.Submission) {
		defer wg.Done()
		counted := false
		for {
			select {
			case <-stop:
				return
			default:
			}
			began := time.Now().UnixNano()
			g.Submit(ctx, s())
			if at := tripped.Load(); !counted && at != 0 && began > at {
				counted = true
				settled.Add(1)
			}
		}
	}
	for range 4 {
		wg.Add(1)
		go agent(func() gate.Submission {
			in := notional("100")
			return gate.Submission{Broker: p, Intent: &in, Actor: live.Agent("burst", "s")}
		})
	}
	over := money.MustParse("6000")                      // over the 5,000 per-order cap: only the grant lets it through
	reviewed := livetest.PinFile(root, "paper")["paper"] // the mandate the grant's card was computed under
	wg.Add(1)
	go agent(func() gate.Submission {
		in := notional("6000")
		return gate.Submission{Broker: p, Intent: &in, Actor: live.Operator("alice", "s"),
			Approval: &live.Approval{Grant: "ap_1", Waives: []live.Breach{{Kind: live.KindQuantitative, Limit: live.LimitOrderNotional, Attempted: over}}, Mandate: reviewed}}
	})
	waitUntil(t, func() bool { mu.Lock(); defer mu.Unlock(); return before >= 20 })
	if _, err := halt.Trip(root, live.HaltSentinel, live.GlobalScope, "test", "halt during a burst", time.Now()); err != nil {
		t.Fatal(err)
	}
	tripped.Store(time.Now().UnixNano())
	// Orders locked before HALT may still be at the broker: the flatten starts once each agent
	// has finished one submission begun after it (they keep submitting during the flatten).
	waitUntil(t, func() bool { return settled.Load() == 5 })
	rep := g.Flatten(ctx, p, "paper", gate.FlattenOptions{ClosePositions: true, Actor: live.Operator("alice", "s"), Why: "halt"})
	waitUntil(t, func() bool { mu.Lock(); defer mu.Unlock(); return after >= 50 })
	close(stop)
	wg.Wait()
	if len(late) > 0 {
		d := late[0]
		t.Fatalf("%d orders forwarded after HALT was written, first %s locked at %v", len(late), d.ClientOrderID, d.LockedAt)
	}
	if !rep.Flat() {
		t.Fatalf("flatten during the burst: not flat: %d orders, %d positions, errors %v", len(rep.OpenOrders), len(rep.Positions), rep.Errors)
	}
	if len(rep.Closes) == 0 {
		t.Fatal("the flatten closed nothing: the burst built no position")
	}
	t.Logf("%d forwarded before HALT, %d decisions after it, none forwarded; %d positions closed", before, after, len(rep.Closes))
}

// waitUntil polls ok for up to 30 s.
func waitUntil(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within 30 s")
		}
		time.Sleep(2 * time.Millisecond)
	}
}
