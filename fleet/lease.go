package fleet

import (
	"cmp"
	"context"
	"errors"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"cockpit/live"
)

// Lease sizing: while the day is far from its cap a host takes a block of slots in one write
// (min(maxLease, room/(hosts*leaseSpread))) and hands them out without a count write (only an
// uncontended put of its own usage key); near the cap (a block of one) every order takes its
// own slot as before. Every leased slot lies below
// the cap, and the CAS on the day key keeps two hosts' blocks apart: the cap stays exact.
const (
	maxLease    = 32 // the largest block, and the largest return a count may show
	leaseSpread = 4  // each host leases at most a quarter of its share of the room left
)

// Lease return: a host gives its unused slots back when it closes, at the day's roll, when a
// new cap comes, after leaseIdle without an order, and at the latest leaseHold after it took
// them. A host that vanishes without returning leaves them counted for the rest of the day.
const (
	leaseIdle  = 2 * time.Second
	leaseHold  = 30 * time.Second
	openStale  = 2 * leaseHold // an Open entry older than this is a vanished host's: its slots count as sent
	hostsFresh = 10 * time.Second
)

var _ live.SlotReserver = (*Days)(nil)

// pool is this host's leased, unused slots of one day key.
type pool struct {
	free  int    // unused slots (each lies below the cap it was leased under)
	next  int    // the orders sent fleet-wide before the next slot, as this host knows them
	id    string // the lease write's id (its usage key names it)
	limit int    // the cap they were leased under
	taken time.Time
	used  time.Time
	timer *time.Timer
}

// leases is the Days' lease state (its zero value is ready).
type leases struct {
	idle, hold time.Duration // leaseIdle and leaseHold unless a test sets them

	mu     sync.Mutex
	pools  map[string]*pool
	closed bool
	hosts  int // live heartbeats, read at most every hostsFresh
	hostAt time.Time
}

// ReserveSlot takes one slot under limit (the day's cap; 0 or less: none known, one slot per
// write) and returns the orders sent fleet-wide before it (as far as this host knows; the
// slot taken is what holds the cap) and the function that gives this slot back. A slot comes
// from this host's lease when it holds one; otherwise it is taken by a write, with a block
// leased along when the day is far from the cap. A slot at or past the cap returns its place
// (at or past the cap: the gate refuses it).
func (d *Days) ReserveSlot(ctx context.Context, broker, day string, limit int) (int, func(context.Context) error, error) {
	key := dayKey(broker, day)
	for again := true; ; again = false {
		d.settle(ctx)
		d.touch(key)
		if place, ok := d.fromPool(ctx, key, limit); ok {
			return place, func(ctx context.Context) error { return d.putBack(ctx, key) }, nil
		}
		o, err := d.takeLease(ctx, key, limit)
		if err != nil {
			return 0, nil, d.F.note(err)
		}
		d.F.note(nil)
		if limit > 0 && o.n >= limit && again && d.doubts(key) {
			// The day looks full, but a write of this host's whose answer was lost may hold
			// slots an order never used: now that a write follows it, settle can tell. The
			// slot just taken goes back and the reservation is made once more.
			if err := d.giveBack(ctx, key, 1); err != nil {
				return 0, nil, d.F.note(err) // the slot's fate is unknown: never given back twice
			}
			continue
		}
		place := o.n
		if limit <= 0 || o.n < limit { // a slot below the cap: the orders sent before it
			place = min(d.sentBefore(ctx, key, o.h), o.n)
		}
		if o.delta <= 1 { // a slot of its own: given back to the fleet
			return place, func(ctx context.Context) error { return d.giveBack(ctx, key, 1) }, nil
		}
		d.fill(ctx, key, limit, o.delta-1, place+1, o.id)
		return place, func(ctx context.Context) error { return d.putBack(ctx, key) }, nil
	}
}

// takeLease takes a block of slots sized on the head (one near the cap, or when closing).
func (d *Days) takeLease(ctx context.Context, key string, limit int) (outcome, error) {
	hosts := d.hostCount(ctx)
	if d.isClosed() {
		limit = 0 // closing: one slot per write, nothing left leased behind
	}
	return d.change(ctx, key, opLease, true, func(h head) int {
		return leaseSize(limit, h.n, max(hosts, len(h.open)+1))
	})
}

// sentBefore is the orders a head counts, read before this host's write on it.
func (d *Days) sentBefore(ctx context.Context, key string, h head) int {
	kv, err := d.F.bucket(ctx, DayBucket)
	if err != nil {
		return h.n
	}
	return d.sent(ctx, kv, key, h, time.Now())
}

// leaseSize is the block a write takes at count n: one near the cap, or with no cap known.
func leaseSize(limit, n, hosts int) int {
	if limit <= 0 || n >= limit {
		return 1
	}
	return min(max((limit-n)/(max(hosts, 1)*leaseSpread), 1), maxLease)
}

// fromPool hands out a leased slot of key and returns the orders sent before it, only when
// the fleet took this host's usage write (its unused slots, signed) for it and its name is
// its own, as a count write would have checked: a host cut off from the fleet cannot hear its
// halts, so it denies as before. Pools of other days, or leased under another cap, are given
// back first.
func (d *Days) fromPool(ctx context.Context, key string, limit int) (int, bool) {
	if !d.F.Connected() || d.F.claim(ctx) != nil {
		return 0, false
	}
	d.lease.mu.Lock()
	var stale []string
	for k, p := range d.lease.pools {
		if k != key && sameBroker(k, key) || k == key && p.limit != limit {
			stale = append(stale, k)
		}
	}
	d.lease.mu.Unlock()
	for _, k := range stale {
		_ = d.returnPool(ctx, k)
	}
	d.lease.mu.Lock()
	p := d.lease.pools[key]
	if p == nil || p.free == 0 {
		d.lease.mu.Unlock()
		return 0, false
	}
	place, id := p.next, p.id
	p.free--
	p.next++
	p.used = time.Now()
	left := p.free
	d.lease.mu.Unlock()
	if err := d.putUse(ctx, key, id, left); err != nil {
		d.lease.mu.Lock()
		if q := d.lease.pools[key]; q == p { // not given back meanwhile: the slot stays unused
			p.free++
			p.next--
		}
		d.lease.mu.Unlock()
		return 0, false
	}
	return place, true
}

// sameBroker reports whether two day keys are one broker's.
func sameBroker(a, b string) bool {
	i, j := len(a)-len("2006-01-02"), len(b)-len("2006-01-02")
	return i > 0 && j > 0 && a[:i] == b[:j]
}

// fill pools n slots leased by the write id, the first with next orders sent before it, and
// arms their return; a lease that lands after Close is given back at once.
func (d *Days) fill(ctx context.Context, key string, limit, n, next int, id string) {
	d.lease.mu.Lock()
	closed := d.lease.closed
	if d.lease.pools == nil {
		d.lease.pools = map[string]*pool{}
	}
	p := d.lease.pools[key]
	if p == nil {
		p = &pool{}
		d.lease.pools[key] = p
	}
	now := time.Now()
	p.free, p.next, p.id = p.free+n, next, id
	p.limit, p.taken, p.used = limit, now, now
	if p.timer == nil && !closed {
		p.timer = time.AfterFunc(d.lease.idleFor(), func() { d.returnIdle(key, time.Now()) })
	}
	d.lease.mu.Unlock()
	if closed {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = d.returnPool(ctx, key)
	}
}

func (l *leases) idleFor() time.Duration { return cmp.Or(l.idle, leaseIdle) }
func (l *leases) holdFor() time.Duration { return cmp.Or(l.hold, leaseHold) }

// putBack returns a slot handed out from the pool (its order was not sent); when the pool
// was given back meanwhile, the slot is given back to the fleet on its own.
func (d *Days) putBack(ctx context.Context, key string) error {
	d.lease.mu.Lock()
	p := d.lease.pools[key]
	ok := p != nil && !d.lease.closed
	var id string
	var left int
	if ok {
		p.free++
		p.next--
		id, left = p.id, p.free
	}
	d.lease.mu.Unlock()
	if !ok {
		return d.giveBack(ctx, key, 1)
	}
	return d.putUse(ctx, key, id, left)
}

// returnIdle is key's timer: a pool unused for leaseIdle, or held for leaseHold, at now is
// given back.
func (d *Days) returnIdle(key string, now time.Time) {
	d.lease.mu.Lock()
	p := d.lease.pools[key]
	if p == nil {
		d.lease.mu.Unlock()
		return
	}
	idle := d.lease.idleFor()
	due := now.Sub(p.used) >= idle || now.Sub(p.taken) >= d.lease.holdFor()
	if !due && p.timer != nil {
		p.timer.Reset(max(idle-now.Sub(p.used), time.Millisecond))
	}
	d.lease.mu.Unlock()
	if due {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = d.returnPool(ctx, key)
	}
}

// ReturnLeases gives back every unused leased slot (the host is leaving, or is told to).
func (d *Days) ReturnLeases(ctx context.Context) error {
	d.lease.mu.Lock()
	keys := make([]string, 0, len(d.lease.pools))
	for k := range d.lease.pools {
		keys = append(keys, k)
	}
	d.lease.mu.Unlock()
	var errs []error
	for _, k := range keys {
		errs = append(errs, d.returnPool(ctx, k))
	}
	return errors.Join(errs...)
}

// Close gives every unused leased slot back and takes no more leases (ReserveSlot then
// takes one slot per write). A return that fails leaves its slots counted: only ever high.
func (d *Days) Close(ctx context.Context) error {
	d.lease.mu.Lock()
	d.lease.closed = true
	d.lease.mu.Unlock()
	d.settle(ctx) // writes whose answer was lost and that landed: their orders were not sent
	return d.ReturnLeases(ctx)
}

// returnPool gives key's unused slots back to the fleet in returns of at most maxLease. A
// return whose answer was lost is not tried again (the count stays high); one that surely
// wrote nothing puts its slots back in the pool for the next try.
func (d *Days) returnPool(ctx context.Context, key string) error {
	d.lease.mu.Lock()
	p := d.lease.pools[key]
	if p == nil {
		d.lease.mu.Unlock()
		return nil
	}
	if p.timer != nil {
		p.timer.Stop()
	}
	delete(d.lease.pools, key)
	free := p.free
	d.lease.mu.Unlock()
	for free > 0 {
		n := min(free, maxLease)
		err := d.giveBack(ctx, key, n)
		if err != nil && !errors.Is(err, errUnclear) && !d.F.nc.IsClosed() {
			d.fillBack(key, p, free) // nothing was written: tried again later
			return err
		}
		free -= n
		if err != nil {
			return err
		}
	}
	return nil
}

// fillBack puts slots a return could not give back in the pool again.
func (d *Days) fillBack(key string, p *pool, free int) {
	d.lease.mu.Lock()
	defer d.lease.mu.Unlock()
	if d.lease.pools == nil {
		d.lease.pools = map[string]*pool{}
	}
	if q := d.lease.pools[key]; q != nil {
		q.free += free
		return
	}
	p.free, p.timer = free, nil
	if !d.lease.closed {
		p.timer = time.AfterFunc(d.lease.idleFor(), func() { d.returnIdle(key, time.Now()) })
	}
	d.lease.pools[key] = p
}

// unused is how many leased slots of key this host holds unused, and whether it holds a pool.
func (d *Days) unused(key string) (int, bool) {
	d.lease.mu.Lock()
	defer d.lease.mu.Unlock()
	p := d.lease.pools[key]
	if p == nil {
		return 0, false
	}
	return p.free, true
}

// openAfter is the Open a write (id) of op and delta leaves: the other hosts' entries as
// the head holds them and this host's unused slots after the write.
func (d *Days) openAfter(key, id string, open map[string]held, op string, delta int) map[string]held {
	out := make(map[string]held, len(open)+1)
	for h, v := range open {
		out[h] = v
	}
	n, _ := d.unused(key)
	if op == opLease && delta > 1 {
		n += delta - 1
	}
	out[d.F.host] = held{N: n, At: time.Now().Unix(), ID: id}
	return out
}

// sent is the orders a head counts: its slots less the leased slots held unused — this
// host's from its own pool; another's from its usage key when that names the host's write in
// the head (it is signed and checked), else as that write said; none from an entry older than
// openStale (a host that vanished with a lease: its slots count as sent, the safe side).
func (d *Days) sent(ctx context.Context, kv jetstream.KeyValue, key string, h head, now time.Time) int {
	n := h.n
	mine, pooled := d.unused(key)
	for host, v := range h.open {
		switch {
		case host == d.F.host && pooled:
			n -= mine
		case v.N > 0 && now.Sub(time.Unix(v.At, 0)) < openStale:
			n -= d.hostUnused(ctx, kv, key, host, v)
		}
	}
	return max(n, 0)
}

// hostCount is the hosts with a live heartbeat as last read (0 before the first read: the
// day key's own list of hosts is used). A read older than hostsFresh is renewed in the
// background, off the order's path.
func (d *Days) hostCount(context.Context) int {
	d.lease.mu.Lock()
	n, stale := d.lease.hosts, time.Since(d.lease.hostAt) >= hostsFresh
	if stale {
		d.lease.hostAt = time.Now() // one renewal at a time
	}
	d.lease.mu.Unlock()
	if stale {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			if beats, err := d.F.Hosts(ctx); err == nil {
				d.lease.mu.Lock()
				d.lease.hosts = len(beats)
				d.lease.mu.Unlock()
			}
		}()
	}
	return n
}

func (d *Days) isClosed() bool {
	d.lease.mu.Lock()
	defer d.lease.mu.Unlock()
	return d.lease.closed
}

// touch marks key's pool used: a host that keeps trying to order (the fleet slow to answer)
// is not idle.
func (d *Days) touch(key string) {
	d.lease.mu.Lock()
	if p := d.lease.pools[key]; p != nil {
		p.used = time.Now()
	}
	d.lease.mu.Unlock()
}

// doubts reports whether a write of key by this host is in doubt.
func (d *Days) doubts(key string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, u := range d.unsure {
		if u.key == key {
			return true
		}
	}
	return false
}
