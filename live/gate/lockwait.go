package gate

import (
	"context"
	"errors"
	"time"

	"cockpit/live"
	"cockpit/live/counter"
)

// DefaultLockWait is how long cockpit's runtime lets an order wait for the submit lock while
// another order holds it (Gate.LockWait): contention among honest clients is waited out, not
// turned into a refusal.
const DefaultLockWait = 10 * time.Second

// lockPoll is how often a waiting order tries a submit lock another process holds.
const lockPoll = 5 * time.Millisecond

// waitTurn waits for this gate's turn to submit on broker key. The orders of one gate take
// turns in arrival order, so each runs every step (mandate, quote, reads, lock, count, check)
// after the one before it forwarded, never on a book read before that order went. It gives up
// with ErrLockBusy at deadline, and with ctx's error when ctx ends.
func (g *Gate) waitTurn(ctx context.Context, key string, deadline time.Time) (release func(), err error) {
	g.mu.Lock()
	if g.turns == nil {
		g.turns = map[string]chan struct{}{}
	}
	turn := g.turns[key]
	if turn == nil {
		turn = make(chan struct{}, 1)
		g.turns[key] = turn
	}
	g.mu.Unlock()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select { // blocked senders are served first come, first served
	case turn <- struct{}{}:
		return func() { <-turn }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		return nil, counter.ErrLockBusy
	}
}

// lockWaiting, when set (by tests), is told when a submission first finds the lock held and
// starts to wait for it.
var lockWaiting func(key string)

// lockBy takes the broker's submit lock, trying again while another submission holds it
// until deadline; waited reports that it had to wait.
func (g *Gate) lockBy(ctx context.Context, key string, deadline time.Time) (l *counter.SubmitLock, waited bool, err error) {
	for {
		l, err := counter.TrySubmitLock(g.Root, key)
		if err == nil || !errors.Is(err, counter.ErrLockBusy) || !time.Now().Before(deadline) {
			return l, waited, err
		}
		if !waited && lockWaiting != nil {
			lockWaiting(key)
		}
		waited = true
		select {
		case <-ctx.Done():
			return nil, waited, ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}

// lock takes the submit lock of step 8. Without LockWait it does not wait (the reference's
// non-blocking lock: busy is DENY lock_busy); with it, it waits until the run's deadline.
// When it had to wait, or another order changed the day's count since the reads (another
// process forwarded in between), it keeps the lock and asks for the steps to run again under
// it (r.again), so the order is checked on the book as it is now (rerun.go).
func (r *run) lock(ctx context.Context) (*counter.SubmitLock, *live.Denial) {
	if l := r.carried; l != nil { // the run again, already under the lock
		r.carried = nil
		r.locked = r.g.dayMark(ctx, r.key)
		return l, nil
	}
	var (
		l      *counter.SubmitLock
		waited bool
		err    error
	)
	if r.deadline.IsZero() {
		l, err = counter.TrySubmitLock(r.g.Root, r.key)
	} else {
		l, waited, err = r.g.lockBy(ctx, r.key, r.deadline)
	}
	if err != nil {
		return nil, lockDenial(r.key, err)
	}
	r.locked = r.g.dayMark(ctx, r.key)
	if waited || !r.locked.same(r.mark) {
		r.again, r.carried = true, l
		return nil, nil
	}
	return l, nil
}

// lockDenial names why the submit lock was not taken: busy (a retry, not a refusal of the
// order), the call cut off while it waited, or a lock that cannot be taken at all.
func lockDenial(key string, err error) *live.Denial {
	switch {
	case errors.Is(err, counter.ErrLockBusy):
		return live.NewDenial(live.ReasonLockBusy, "broker", key)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return live.NewDenial(live.ReasonCancelled, "broker", key, "error", err.Error())
	}
	return live.NewDenial(live.ReasonLockError, "broker", key)
}

// waitTurn starts a run that may wait for the lock: it sets the run's deadline and waits for
// the gate's turn on the broker. A dry run and a gate without LockWait never wait.
func (r *run) waitTurn(ctx context.Context) (release func(), den *live.Denial) {
	if r.g.LockWait <= 0 || r.s.DryRun {
		return func() {}, nil
	}
	r.deadline = time.Now().Add(r.g.LockWait)
	release, err := r.g.waitTurn(ctx, r.key, r.deadline)
	if err != nil {
		return nil, lockDenial(r.key, err)
	}
	return release, nil
}
