package gate

import (
	"context"
	"time"

	"cockpit/live"
)

// fleetTimeout bounds one reservation or release: past it the count is unknown (deny).
const fleetTimeout = 2 * time.Second

// reserve takes one slot of the fleet's day count (Gate.Days) for the day the lock was taken
// and returns the larger of the local count and the fleet's count before the slot. Without a
// fleet it returns the local count. A reservation that fails denies fleet_unavailable. A dry
// run takes no slot: it reads the fleet's count (live.DayCounter), and a fleet whose count
// cannot be read without taking a slot is unavailable to it.
func (r *run) reserve(ctx context.Context, local int) (int, *live.Denial) {
	if r.g.Days == nil {
		return local, nil
	}
	r.check("fleet_count")
	day := live.UTCDay(r.d.LockedAt)
	ctx, cancel := context.WithTimeout(ctx, fleetTimeout)
	defer cancel()
	if r.s.DryRun {
		c, ok := r.g.Days.(live.DayCounter)
		if !ok {
			return 0, live.NewDenial(live.ReasonFleetUnavailable, "broker", r.key, "error", "the fleet's count cannot be read without taking a slot")
		}
		n, err := c.Count(ctx, r.key, day)
		if err != nil {
			return 0, live.NewDenial(live.ReasonFleetUnavailable, "broker", r.key, "error", err.Error())
		}
		return max(local, n), nil
	}
	if sr, ok := r.g.Days.(live.SlotReserver); ok { // may hand out a leased slot
		n, give, err := sr.ReserveSlot(ctx, r.key, day, r.m.HardCaps.MaxTradesPerDay)
		if err != nil {
			return 0, live.NewDenial(live.ReasonFleetUnavailable, "broker", r.key, "error", err.Error())
		}
		r.slot, r.give = day, give
		return max(local, n), nil
	}
	n, err := r.g.Days.Reserve(ctx, r.key, day)
	if err != nil {
		return 0, live.NewDenial(live.ReasonFleetUnavailable, "broker", r.key, "error", err.Error())
	}
	r.slot = day
	return max(local, n), nil
}

// reserveChildren counts the orders the broker created with an accepted one (a bracket's
// legs) in the fleet, as the journal counts them here. They were sent already: a failure
// leaves the fleet's count low by them, and this host's own count (the larger) still has them.
func (r *run) reserveChildren(n int) {
	if r.g.Days == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), fleetTimeout)
	defer cancel()
	day := live.UTCDay(r.d.LockedAt)
	count := func() error { _, err := r.g.Days.Reserve(ctx, r.key, day); return err }
	if sc, ok := r.g.Days.(live.SentCounter); ok { // never released, even when an answer is lost
		count = func() error { return sc.CountSent(ctx, r.key, day) }
	}
	for range n {
		if count() != nil {
			return
		}
	}
}

// release gives the run's fleet slot back (the order was not sent, or the broker rejected
// it); a failed release leaves the slot taken, which only counts too high.
func (r *run) release(ctx context.Context) {
	if r.slot == "" || r.g.Days == nil {
		return
	}
	day, give := r.slot, r.give
	r.slot, r.give = "", nil
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fleetTimeout)
	defer cancel()
	if give != nil { // a slot from ReserveSlot goes back where it came from
		_ = give(ctx)
		return
	}
	_ = r.g.Days.Release(ctx, r.key, day)
}
