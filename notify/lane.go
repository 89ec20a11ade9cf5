package notify

import (
	"context"
	"fmt"
	"time"

	"cockpit/live/jsonv"
)

// run is the lane's worker: it sends what take gives, one message at a time, until the lane is
// closed and empty or ctx ends.
func (l *lane) run(ctx context.Context) {
	for {
		m, wait, done := l.take(l.n.o.Now())
		if m != nil {
			l.n.deliver(ctx, l, *m)
			if ctx.Err() != nil {
				return
			}
			continue
		}
		if done {
			return
		}
		if !l.idle(ctx, wait) {
			return
		}
	}
}

// idle waits for a push, for wait (when a held message falls due) or for ctx; false when ctx ended.
func (l *lane) idle(ctx context.Context, wait time.Duration) bool {
	var due <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		due = t.C
	}
	select {
	case <-l.wake:
	case <-due:
	case <-ctx.Done():
		return false
	}
	return true
}

// step sends the next message due now, if any, on the caller's goroutine (tests drive the
// lane with it and a fake clock); it reports whether one was sent.
func (l *lane) step(ctx context.Context) bool {
	m, _, _ := l.take(l.n.o.Now())
	if m == nil {
		return false
	}
	l.n.deliver(ctx, l, *m)
	return true
}

// take returns the next message to send now. A queued message over its event's rate is held
// back (the newest one kept, the rest counted) and goes out, with the count, when the bucket
// refills or the lane closes; the next message of that event that passes carries the count
// instead. Without a message, wait is how long until a held one falls due (0: none held), and
// done says the lane is closed and has nothing left.
func (l *lane) take(now time.Time) (m *Message, wait time.Duration, done bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(l.q) > 0 {
		next := l.q[0]
		l.q = l.q[1:]
		if !l.bucket(next.Event, now).allow(now) {
			l.held[next.Event] = &next
			l.heldN[next.Event]++
			continue
		}
		next.suppressed = l.heldN[next.Event]
		delete(l.held, next.Event)
		delete(l.heldN, next.Event)
		return l.stamp(next), 0, false
	}
	for _, e := range Events {
		h := l.held[e]
		if h == nil {
			continue
		}
		b := l.bucket(e, now)
		if !l.closed && !b.allow(now) {
			if w := b.wait(now); wait == 0 || w < wait {
				wait = max(w, time.Millisecond)
			}
			continue
		}
		out := *h
		out.suppressed = l.heldN[e] - 1
		delete(l.held, e)
		delete(l.heldN, e)
		return l.stamp(out), 0, false
	}
	return nil, wait, l.closed && wait == 0
}

// stamp gives m the count of messages the queue dropped since the last one sent.
func (l *lane) stamp(m Message) *Message {
	m.dropped, l.dropped = l.dropped, 0
	return &m
}

func (l *lane) bucket(e Event, now time.Time) *bucket {
	b := l.buckets[e]
	if b == nil {
		b = newBucket(l.n.o.Rate, now)
		l.buckets[e] = b
	}
	return b
}

// abandon records, once the worker has stopped, the messages that never left (Close's drain
// ran out): one record for all of them.
func (l *lane) abandon() {
	l.mu.Lock()
	left := len(l.q) + l.dropped
	for _, n := range l.heldN {
		left += n
	}
	l.q, l.dropped, l.held, l.heldN = nil, 0, map[Event]*Message{}, map[Event]int{}
	l.mu.Unlock()
	if left == 0 {
		return
	}
	s := l.t.Sink
	l.n.audit("", OutcomeFailed, fmt.Sprintf("notify %s (%s): %d notification(s) not sent: cockpit closed before the sink answered", s.Name(), s.Type(), left),
		jsonv.ObjectOf("sink", s.Name(), "type", s.Type(), "not_sent", left))
}
