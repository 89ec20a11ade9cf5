package fleet

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"cockpit/live"
)

// Lease sizing: while the day is far from its cap a host takes a block of slots in one write
// (min(maxLease, room/(hosts*leaseSpread))) and hands them out without a round trip; near the
// cap (a block of one) every order takes its own slot as before. Every leased slot lies below
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

// pool is this host's leased, unused slots of one day key: their places in the day.
type pool struct {
	free  []int // ascending
	limit int   // the cap they were leased under
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
// write) and returns its place in the day and the function that gives this slot back. A slot
// comes from this host's lease when it holds one; otherwise it is taken by a write, with a
// block leased along when the day is far from the cap.
func (d *Days) ReserveSlot(ctx context.Context, broker, day string, limit int) (int, func(context.Context) error, error) {
	d.settle(ctx)
	key := dayKey(broker, day)
	if place, ok := d.fromPool(ctx, key, limit); ok {
		return place, func(context.Context) error { d.putBack(key, place); return nil }, nil
	}
	hosts := d.hostCount(ctx)
	if d.isClosed() {
		limit = 0 // closing: one slot per write, nothing left leased behind
	}
	n, size, err := d.change(ctx, key, opLease, true, func(h head) int {
		return leaseSize(limit, h.n, max(hosts, len(h.open)+1))
	})
	if err != nil {
		return 0, nil, d.F.note(err)
	}
	d.F.note(nil)
	if size <= 1 { // a slot of its own: given back to the fleet
		return n, func(ctx context.Context) error { return d.giveBack(ctx, key, 1) }, nil
	}
	d.fill(ctx, key, limit, n+1, n+size)
	return n, func(context.Context) error { d.putBack(key, n); return nil }, nil
}

// leaseSize is the block a write takes at count n: one near the cap, or with no cap known.
func leaseSize(limit, n, hosts int) int {
	if limit <= 0 || n >= limit {
		return 1
	}
	return min(max((limit-n)/(max(hosts, 1)*leaseSpread), 1), maxLease)
}

// fromPool hands out the lowest leased slot of key, only when the fleet's server answered a
// ping for this order and this host's name is its own, as a write would have checked: a host
// cut off from the fleet cannot hear its halts, so it denies as before. Pools of other days,
// or leased under another cap, are given back first.
func (d *Days) fromPool(ctx context.Context, key string, limit int) (int, bool) {
	if !d.F.Connected() || d.F.claim(ctx) != nil || d.F.nc.FlushWithContext(ctx) != nil {
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
		d.returnPool(ctx, k)
	}
	d.lease.mu.Lock()
	defer d.lease.mu.Unlock()
	p := d.lease.pools[key]
	if p == nil || len(p.free) == 0 {
		return 0, false
	}
	place := p.free[0]
	p.free = p.free[1:]
	p.used = time.Now()
	return place, true
}

// sameBroker reports whether two day keys are one broker's.
func sameBroker(a, b string) bool {
	i, j := len(a)-len("2006-01-02"), len(b)-len("2006-01-02")
	return i > 0 && j > 0 && a[:i] == b[:j]
}

// fill puts the places [from, to) in key's pool and arms its return; a lease that lands
// after Close is given back at once.
func (d *Days) fill(ctx context.Context, key string, limit, from, to int) {
	d.lease.mu.Lock()
	closed := d.lease.closed
	d.fillLocked(key, limit, from, to)
	d.lease.mu.Unlock()
	if closed {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = d.returnPool(ctx, key)
	}
}

func (d *Days) fillLocked(key string, limit, from, to int) {
	if d.lease.pools == nil {
		d.lease.pools = map[string]*pool{}
	}
	p := d.lease.pools[key]
	if p == nil {
		p = &pool{}
		d.lease.pools[key] = p
	}
	for i := from; i < to; i++ {
		p.free = append(p.free, i)
	}
	slices.Sort(p.free)
	now := time.Now()
	p.limit, p.taken, p.used = limit, now, now
	if p.timer == nil && !d.lease.closed {
		p.timer = time.AfterFunc(d.lease.idleFor(), func() { d.returnIdle(key, time.Now()) })
	}
}

func (l *leases) idleFor() time.Duration { return cmp.Or(l.idle, leaseIdle) }
func (l *leases) holdFor() time.Duration { return cmp.Or(l.hold, leaseHold) }

// putBack returns a slot handed out from the pool (its order was not sent).
func (d *Days) putBack(key string, place int) {
	d.lease.mu.Lock()
	p := d.lease.pools[key]
	if p != nil && !d.lease.closed {
		i, _ := slices.BinarySearch(p.free, place)
		p.free = slices.Insert(p.free, i, place)
	}
	d.lease.mu.Unlock()
	if p == nil || d.isClosed() { // the pool was given back meanwhile: give the slot back on its own
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = d.giveBack(ctx, key, 1)
		cancel()
	}
}

func (d *Days) isClosed() bool {
	d.lease.mu.Lock()
	defer d.lease.mu.Unlock()
	return d.lease.closed
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
		d.returnPool(ctx, key)
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
	for len(free) > 0 {
		n := min(len(free), maxLease)
		err := d.giveBack(ctx, key, n)
		if err != nil && !errors.Is(err, errUnclear) && !d.F.nc.IsClosed() {
			d.fillBack(key, p, free) // nothing was written: tried again later
			return err
		}
		free = free[n:]
		if err != nil {
			return err
		}
	}
	return nil
}

// fillBack puts slots a return could not give back in the pool again.
func (d *Days) fillBack(key string, p *pool, free []int) {
	d.lease.mu.Lock()
	defer d.lease.mu.Unlock()
	if d.lease.pools == nil {
		d.lease.pools = map[string]*pool{}
	}
	if q := d.lease.pools[key]; q != nil {
		q.free = append(q.free, free...)
		slices.Sort(q.free)
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
	return len(p.free), true
}

// openAfter is the Open a write of op and delta leaves: the other hosts' entries as the head
// holds them and this host's unused slots after the write.
func (d *Days) openAfter(key string, open map[string]held, op string, delta int) map[string]held {
	out := make(map[string]held, len(open)+1)
	for h, v := range open {
		out[h] = v
	}
	n, _ := d.unused(key)
	if op == opLease && delta > 1 {
		n += delta - 1
	}
	out[d.F.host] = held{N: n, At: time.Now().Unix()}
	return out
}

// sent is the orders a head counts: its slots less the leased slots held unused — this
// host's from its own pool, the others' as their last write said, unless that is older than
// openStale (a host that vanished with a lease: its slots count as sent, the safe side).
func (d *Days) sent(key string, h head, now time.Time) int {
	n := h.n
	mine, pooled := d.unused(key)
	for host, v := range h.open {
		switch {
		case host == d.F.host && pooled:
			n -= mine
		case now.Sub(time.Unix(v.At, 0)) < openStale:
			n -= v.N
		}
	}
	return max(n, 0)
}

// hostCount is the hosts with a live heartbeat, read at most every hostsFresh (0 when
// unknown: the day key's own list of hosts is used).
func (d *Days) hostCount(ctx context.Context) int {
	d.lease.mu.Lock()
	n, at := d.lease.hosts, d.lease.hostAt
	d.lease.mu.Unlock()
	if time.Since(at) < hostsFresh {
		return n
	}
	beats, err := d.F.Hosts(ctx)
	if err == nil {
		n = len(beats)
	}
	d.lease.mu.Lock()
	d.lease.hosts, d.lease.hostAt = n, time.Now()
	d.lease.mu.Unlock()
	return n
}
