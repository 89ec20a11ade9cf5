package fleet

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"cockpit/live"
)

// Days is the fleet's day count (live.DayReserver): one key per broker and UTC day, changed
// only by compare-and-set on its revision (Create for the first order of the day). Each value
// is "<count> <reservation id>": a write whose answer was lost (a leader election, a dropped
// connection) is looked up later by its id in the key's history, and a slot it took for an
// order that was then denied is given back.
type Days struct {
	F *Fleet

	mu     sync.Mutex
	unsure []unsure

	// loseAnswer, set only by tests, drops the answer of a write that landed (as a leader
	// election or a dropped connection does) when it returns true for the write's delta.
	loseAnswer func(delta int) bool
}

// unsure is a reservation whose write may or may not have landed.
type unsure struct {
	key, id string
	rev     uint64 // the revision the write expected
	at      time.Time
}

var (
	_ live.DayReserver = (*Days)(nil)
	_ live.SentCounter = (*Days)(nil)
	_ live.DayCounter  = (*Days)(nil)
)

// dayHistory is the revisions kept per day key (the window in which an unsure write is found).
const dayHistory = 64

// errUnclear marks a count write that may have landed: its answer was lost.
var errUnclear = errors.New("the write's answer was lost")

// maxCAS bounds the retries of one reservation under contention.
const maxCAS = 1000

func dayKey(broker, day string) string { return brokerToken(broker) + "." + day }

// Reserve takes one slot and returns the count before it.
func (d *Days) Reserve(ctx context.Context, broker, day string) (int, error) {
	d.settle(ctx)
	n, err := d.add(ctx, broker, day, 1, true)
	return n, d.F.note(err)
}

// CountSent counts an order the broker already has (a bracket's leg). Its slot is never
// given back: a write whose answer was lost is not put in doubt (settle would release it),
// so the count can only be high.
func (d *Days) CountSent(ctx context.Context, broker, day string) error {
	_, err := d.add(ctx, broker, day, 1, false)
	return d.F.note(err)
}

// Release gives one slot back (never below zero).
func (d *Days) Release(ctx context.Context, broker, day string) error {
	_, err := d.add(ctx, broker, day, -1, false)
	return d.F.note(err)
}

// Count reads the count without changing it.
func (d *Days) Count(ctx context.Context, broker, day string) (int, error) {
	kv, err := d.F.bucket(ctx, DayBucket)
	if err != nil {
		return 0, err
	}
	e, err := kv.Get(ctx, dayKey(broker, day))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n, _, err := parseCount(e.Value())
	return n, err
}

// Settle resolves the reservations whose answers were lost: one that landed is given back
// (at most once), one that did not is forgotten, one still unknown is kept for later.
func (d *Days) Settle(ctx context.Context) { d.settle(ctx) }

// Unsure is how many reservations are not known to have landed or not.
func (d *Days) Unsure() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.unsure)
}

// add changes the count by delta with a CAS loop and returns the value it replaced. With
// inDoubt, a write without a clear answer is remembered for settle.
func (d *Days) add(ctx context.Context, broker, day string, delta int, inDoubt bool) (int, error) {
	if !d.F.Connected() { // fail at once rather than wait for a reconnect that may not come
		return 0, fmt.Errorf("fleet %s", d.F.nc.Status())
	}
	if err := d.F.claim(ctx); err != nil { // another cockpit under this host name: refused
		return 0, err
	}
	kv, err := d.F.bucket(ctx, DayBucket)
	if err != nil {
		return 0, err
	}
	key := dayKey(broker, day)
	for attempt := range maxCAS {
		id := live.RandomID("rsv")
		e, err := kv.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			if delta < 0 {
				return 0, nil
			}
			_, err = kv.Create(ctx, key, countValue(delta, id))
			err = d.lost(err, delta)
			if err == nil {
				return 0, nil
			}
			if errors.Is(err, jetstream.ErrKeyExists) {
				continue // another host created it first
			}
			if inDoubt {
				d.doubt(key, id, 0, delta)
			}
			return 0, fmt.Errorf("fleet count %s: %w: %w", key, errUnclear, err)
		}
		if err != nil {
			return 0, fmt.Errorf("fleet count %s: %w", key, err)
		}
		n, _, err := parseCount(e.Value())
		if err != nil {
			return 0, fmt.Errorf("fleet count %s: %w", key, err)
		}
		_, err = kv.Update(ctx, key, countValue(max(n+delta, 0), id), e.Revision())
		if err = d.lost(err, delta); err == nil {
			return n, nil
		}
		if !errors.Is(err, jetstream.ErrKeyRevisionMismatch) && !errors.Is(err, jetstream.ErrKeyExists) {
			if inDoubt {
				d.doubt(key, id, e.Revision(), delta)
			}
			return 0, fmt.Errorf("fleet count %s: %w: %w", key, errUnclear, err)
		}
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		backoff(attempt)
	}
	return 0, fmt.Errorf("fleet count %s: too much contention", key)
}

// doubt remembers a reservation whose write had no clear answer (a release in doubt only
// leaves the count high, which is safe).
func (d *Days) doubt(key, id string, rev uint64, delta int) {
	if delta <= 0 {
		return
	}
	d.mu.Lock()
	d.unsure = append(d.unsure, unsure{key: key, id: id, rev: rev, at: time.Now()})
	d.mu.Unlock()
}

// settle resolves the reservations in doubt: the revision after the one a write expected is
// either that write (it landed for an order that was denied: the slot is given back) or
// another host's (it did not land). One that cannot be told yet is kept for 10 minutes. A slot
// is given back at most once.
func (d *Days) settle(ctx context.Context) {
	d.mu.Lock()
	todo := d.unsure
	d.unsure = nil
	d.mu.Unlock()
	if len(todo) == 0 {
		return
	}
	kv, err := d.F.bucket(ctx, DayBucket)
	var keep []unsure
	for _, u := range todo {
		landed, known := false, false
		if err == nil {
			landed, known = d.landed(ctx, kv, u)
		}
		switch {
		case known && landed:
			// Given back at most once: a release whose own answer was lost may have landed,
			// so it is not tried again (at worst the count stays one high). One that surely
			// wrote nothing (no connection, lost races) is tried at the next settle.
			if rerr := d.releaseKey(ctx, u.key); rerr != nil && !errors.Is(rerr, errUnclear) {
				keep = append(keep, u)
			}
		case known:
		case time.Since(u.at) < 10*time.Minute:
			keep = append(keep, u)
		}
	}
	d.mu.Lock()
	d.unsure = append(d.unsure, keep...)
	d.mu.Unlock()
}

// releaseKey gives one slot back on a bucket key.
func (d *Days) releaseKey(ctx context.Context, key string) error {
	i := strings.LastIndexByte(key, '.')
	broker, ok := brokerOfToken(key[:max(i, 0)])
	if i < 0 || !ok {
		return fmt.Errorf("fleet count: bad key %q", key)
	}
	_, err := d.add(ctx, broker, key[i+1:], -1, false)
	return err
}

// lost is the test seam: a write that landed (err nil) loses its answer when loseAnswer says so.
func (d *Days) lost(err error, delta int) error {
	if err == nil && d.loseAnswer != nil && d.loseAnswer(delta) {
		return context.DeadlineExceeded
	}
	return err
}

// landed looks for u's write right after the revision it expected.
func (d *Days) landed(ctx context.Context, kv jetstream.KeyValue, u unsure) (landed, known bool) {
	hist, err := kv.History(ctx, u.key)
	if err != nil {
		return false, false
	}
	next := -1
	switch {
	case u.rev == 0 && len(hist) < dayHistory:
		next = 0
	default:
		for i, e := range hist {
			if e.Revision() == u.rev {
				next = i + 1
			}
		}
	}
	if next < 0 || next >= len(hist) {
		return false, false // the base is gone from the history, or nothing followed it yet
	}
	_, id, _ := parseCount(hist[next].Value())
	return id == u.id, true
}

// backoff waits a random while after a lost race, longer after each, so hosts that keep
// colliding spread out (at most about a millisecond).
func backoff(attempt int) {
	time.Sleep(time.Duration(rand.Int64N(int64(min(attempt+1, 8)) * int64(100*time.Microsecond))))
}

func countValue(n int, id string) []byte { return []byte(strconv.Itoa(n) + " " + id) }

// parseCount reads "<count> <reservation id>" (a bare count is accepted).
func parseCount(b []byte) (int, string, error) {
	num, id, _ := strings.Cut(string(b), " ")
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		return 0, "", fmt.Errorf("not a count: %q", b)
	}
	return n, id, nil
}
