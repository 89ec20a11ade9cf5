package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
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
	high   map[string]int // the highest trusted count seen per key (a restore's last resort)

	daysStream jetstream.Stream
	mine       map[string]written // this process's last write per key

	lease leases // this host's leased, unused slots

	// loseAnswer, set only by tests, drops the answer of a write that landed (as a leader
	// election or a dropped connection does) when it returns true for the write's delta;
	// echoRace answers such a write as a lost race (the client's own retry of it found it).
	loseAnswer func(delta int) bool
	echoRace   func(delta int) bool
}

// unsure is a reservation whose write may or may not have landed.
type unsure struct {
	key, id string
	rev     uint64 // the revision the write expected
	n       int    // the slots it took (a lease takes a block)
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

// Count reads the orders sent without changing the count: the slots taken less the leased
// slots the hosts hold unused (see sent). A head that does not check out is refused (and
// alerted) and the trusted count is returned instead.
func (d *Days) Count(ctx context.Context, broker, day string) (int, error) {
	return d.countAt(ctx, broker, day, time.Now())
}

// countAt is Count read at now (how old the hosts' Open entries are).
func (d *Days) countAt(ctx context.Context, broker, day string, now time.Time) (int, error) {
	kv, err := d.F.bucket(ctx, DayBucket)
	if err != nil {
		return 0, err
	}
	key := dayKey(broker, day)
	h, err := d.head(ctx, kv, key)
	if err != nil {
		return 0, err
	}
	return d.sent(ctx, kv, key, h, now), nil
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
// inDoubt, a write without a clear answer is remembered for settle. A head that does not
// check out (checkCount) is refused and alerted, and the count is restored on top of it from
// the trusted history; with none, the count is unknown (an error: the gate denies).
func (d *Days) add(ctx context.Context, broker, day string, delta int, inDoubt bool) (int, error) {
	op := opReserve
	switch {
	case delta < 0:
		op = opRelease
	case !inDoubt:
		op = opSent
	}
	o, err := d.change(ctx, dayKey(broker, day), op, inDoubt, func(head) int { return delta })
	return o.n, err
}

// change writes one change of a day key with a CAS loop: step gives the delta for the head
// it builds on (a lease sizes its block on the count). It returns the count it replaced and
// the delta written, and the head it built on. Every write also says how many leased slots this host holds unused
// (Open), so the orders sent can be told from the slots taken.
func (d *Days) change(ctx context.Context, key, op string, inDoubt bool, step func(head) int) (outcome, error) {
	if !d.F.Connected() { // fail at once rather than wait for a reconnect that may not come
		return outcome{}, fmt.Errorf("fleet %s", d.F.nc.Status())
	}
	if err := d.F.claim(ctx); err != nil { // another cockpit under this host name: refused
		return outcome{}, err
	}
	kv, err := d.F.bucket(ctx, DayBucket)
	if err != nil {
		return outcome{}, err
	}
	var tried outcome // the last write refused as a lost race, and its bytes
	var triedData []byte
	for attempt := range maxCAS {
		id := live.RandomID("rsv")
		h, err := d.head(ctx, kv, key)
		if err != nil {
			return outcome{}, err
		}
		if tried.id != "" && h.id == tried.id {
			// The "lost race" was this write itself: the client published it again (a leader
			// election) and the copy found its own first landing. It is not made twice.
			d.wrote(key, h.rev, triedData)
			d.saw(key, h.shown)
			return tried, nil
		}
		delta := step(h)
		if h.rev == 0 {
			if delta < 0 {
				return outcome{0, delta, h, id}, nil
			}
			data := d.F.encodeCount(key, count{N: delta, ID: id, Op: op, Open: d.openAfter(key, id, h.open, op, delta)})
			rev, err := kv.Create(ctx, key, data)
			if err = d.lost(err, delta); err == nil {
				d.wrote(key, rev, data)
				d.saw(key, delta)
				return outcome{0, delta, h, id}, nil
			}
			if errors.Is(err, jetstream.ErrKeyExists) {
				if rev, ok := d.followedBy(ctx, key, 0, id); ok { // this write landed before
					d.wrote(key, rev, data)
					return outcome{0, delta, h, id}, nil
				}
				tried, triedData = outcome{0, delta, h, id}, data
				continue // another host created it first
			}
			if inDoubt {
				d.doubt(key, id, 0, delta)
			}
			return outcome{0, delta, h, id}, fmt.Errorf("fleet count %s: %w: %w", key, errUnclear, err)
		}
		n := h.n
		next := count{N: max(n+delta, 0), ID: id, Op: op, Prev: h.shown, Base: h.rev, Open: d.openAfter(key, id, h.open, op, delta)}
		data := d.F.encodeCount(key, next)
		rev, err := kv.Update(ctx, key, data, h.rev)
		if err = d.lost(err, delta); err == nil {
			d.wrote(key, rev, data)
			d.saw(key, next.N)
			return outcome{n, delta, h, id}, nil
		}
		if !errors.Is(err, jetstream.ErrKeyRevisionMismatch) && !errors.Is(err, jetstream.ErrKeyExists) {
			if inDoubt {
				d.doubt(key, id, h.rev, delta)
			}
			return outcome{0, delta, h, id}, fmt.Errorf("fleet count %s: %w: %w", key, errUnclear, err)
		}
		if rev, ok := d.followedBy(ctx, key, h.rev, id); ok { // the race lost was to itself
			d.wrote(key, rev, data)
			d.saw(key, next.N)
			return outcome{n, delta, h, id}, nil
		}
		tried, triedData = outcome{n, delta, h, id}, data
		if ctx.Err() != nil {
			if inDoubt { // it may have landed before the race was seen
				d.doubt(key, id, h.rev, delta)
			}
			return outcome{0, delta, h, id}, ctx.Err()
		}
		backoff(attempt)
	}
	return outcome{}, fmt.Errorf("fleet count %s: too much contention", key)
}

// followedBy reports whether the key's first entry after revision rev is the write id (a
// write the client published again, whose copy then lost the race to it), and its revision.
func (d *Days) followedBy(ctx context.Context, key string, rev uint64, id string) (uint64, bool) {
	s, err := d.stream(ctx)
	if err != nil {
		return 0, false
	}
	m, err := s.GetMsg(ctx, rev+1, jetstream.WithGetMsgSubject("$KV."+DayBucket+"."+key))
	if err != nil {
		return 0, false
	}
	if _, mid, err := parseCount(m.Data); err != nil || mid != id {
		return 0, false
	}
	return m.Sequence, true
}

// outcome is a day-count write's: the count it replaced, the delta it wrote, the head it
// built on and its id.
type outcome struct {
	n, delta int
	h        head
	id       string
}

// written is a write this process made: its revision and its bytes.
type written struct {
	rev  uint64
	data []byte
}

// wrote remembers this process's write of key.
func (d *Days) wrote(key string, rev uint64, data []byte) {
	d.mu.Lock()
	if d.mine == nil {
		d.mine = map[string]written{}
	}
	d.mine[key] = written{rev: rev, data: data}
	d.mu.Unlock()
}

// ownWrite reports whether e is, byte for byte at its revision, this process's last write.
func (d *Days) ownWrite(key string, e jetstream.KeyValueEntry) bool {
	d.mu.Lock()
	w, ok := d.mine[key]
	d.mu.Unlock()
	return ok && w.rev == e.Revision() && bytes.Equal(w.data, e.Value())
}

// head is a day key's latest entry as the next write builds on it.
type head struct {
	rev   uint64          // 0: no entry (the day's first write creates it)
	n     int             // the count to build on (restored when the entry was refused)
	shown int             // the count the entry itself holds (a write's prev)
	open  map[string]held // the hosts' unused leased slots the entry holds
	id    string          // the entry's write id
}

// head reads the key's latest entry and checks it. A refused entry is alerted and the
// count restored from the trusted history; a key deleted or purged has no history left, so
// only this process's memory can restore it.
func (d *Days) head(ctx context.Context, kv jetstream.KeyValue, key string) (head, error) {
	e, err := kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		marker, err := d.removed(ctx, key)
		if err != nil {
			return head{}, fmt.Errorf("fleet count %s: %w", key, err)
		}
		if marker == 0 {
			return head{}, nil
		}
		return d.restore(ctx, kv, key, "the key was deleted or purged", head{rev: marker})
	}
	if err != nil {
		return head{}, fmt.Errorf("fleet count %s: %w", key, err)
	}
	c, perr := decodeCount(e.Value())
	h := head{rev: e.Revision(), n: c.N, shown: c.N, open: c.Open, id: c.ID}
	why := ""
	if !d.ownWrite(key, e) { // this process's own last write was checked before it was made
		why = d.checkCount(ctx, key, e)
	}
	if why == "" && perr != nil {
		why = perr.Error()
	}
	if why == "" {
		d.saw(key, c.N)
		return h, nil
	}
	return d.restore(ctx, kv, key, why, h)
}

// restore alerts a refused head and returns the trusted count to build on instead.
func (d *Days) restore(ctx context.Context, kv jetstream.KeyValue, key, why string, h head) (head, error) {
	n, ok := d.trusted(ctx, kv, key)
	text := fmt.Sprintf("day count %s refused: %s", key, why)
	if !ok {
		d.F.alert(Alert{Kind: AlertCountRefused, Subject: key, Text: text + "; no trusted count is left: orders are denied"})
		return head{}, fmt.Errorf("fleet count %s: refused (%s) and no trusted count to restore", key, why)
	}
	d.F.alert(Alert{Kind: AlertCountRefused, Subject: key, Text: fmt.Sprintf("%s; restored to %d", text, max(n, h.shown))})
	h.n, h.open = max(n, h.shown), nil // a refused entry's leases are not believed either
	return h, nil
}

// doubt remembers a reservation or a lease's return whose write had no clear answer (a
// release in doubt only leaves the count high, which is safe).
func (d *Days) doubt(key, id string, rev uint64, delta int) {
	if delta == 0 {
		return
	}
	d.mu.Lock()
	d.unsure = append(d.unsure, unsure{key: key, id: id, rev: rev, n: delta, at: time.Now()})
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
		case known && landed && u.n > 0:
			// Given back at most once: a release whose own answer was lost may have landed,
			// so it is not tried again (at worst the count stays one high). One that surely
			// wrote nothing (no connection, lost races) is tried at the next settle.
			if rerr := d.giveBack(ctx, u.key, u.n); rerr != nil && !errors.Is(rerr, errUnclear) {
				keep = append(keep, u)
			}
		case known && !landed && u.n < 0:
			// A release or return that surely did not land is made again (itself in doubt).
			if rerr := d.giveBack(ctx, u.key, -u.n); rerr != nil && !errors.Is(rerr, errUnclear) {
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

// giveBack gives n slots back on a bucket key: one by a release, more by a lease's return.
func (d *Days) giveBack(ctx context.Context, key string, n int) error {
	i := strings.LastIndexByte(key, '.')
	if _, ok := brokerOfToken(key[:max(i, 0)]); i < 0 || !ok {
		return fmt.Errorf("fleet count: bad key %q", key)
	}
	op := opRelease
	if n > 1 {
		op = opReturn
	}
	// A give-back whose answer is lost is settled later: made again only if it surely did
	// not land (one that landed, or cannot be told, is never made twice).
	_, err := d.change(ctx, key, op, true, func(head) int { return -n })
	return err
}

// lost is the test seam: a write that landed (err nil) loses its answer when loseAnswer says so.
func (d *Days) lost(err error, delta int) error {
	if err == nil && d.loseAnswer != nil && d.loseAnswer(delta) {
		return context.DeadlineExceeded
	}
	if err == nil && d.echoRace != nil && d.echoRace(delta) {
		return jetstream.ErrKeyRevisionMismatch
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
