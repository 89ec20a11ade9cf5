package gate

import (
	"context"
	"os"
)

// dayMark is what another order on a broker changes: the bytes of the counter file (every
// gate and the reference write it after a forward) and the journal's accepted orders today
// (every cockpit gate's forwards, also when its counter write failed). An order takes the
// mark before its reads and again once it holds the submit lock: a different mark means
// another process forwarded in between, on a book this order did not read.
type dayMark struct {
	file, fileErr string
	journal       int
	journalErr    string
}

// dayMark reads key's mark now.
func (g *Gate) dayMark(ctx context.Context, key string) dayMark {
	var m dayMark
	if data, err := os.ReadFile(g.Root.CounterPath(key)); err != nil {
		m.fileErr = err.Error()
	} else {
		m.file = string(data)
	}
	if g.Journal == nil {
		return m
	}
	if n, err := g.Journal.AcceptedOrders(ctx, key, g.now()); err != nil {
		m.journalErr = err.Error()
	} else {
		m.journal = n
	}
	return m
}

// submitFresh runs the order's steps; when, under the lock, another order turns out to have
// gone since its reads, it runs them all once more while keeping the lock, so nothing can
// change between that run's reads and its decision. Only that run is audited.
func (r *run) submitFresh(ctx context.Context) Decision {
	base := *r
	d := r.submit(ctx)
	if !r.again {
		return d
	}
	carried := r.carried
	*r = base
	r.carried = carried
	r.check("rerun_under_lock")
	d = r.submit(ctx)
	if r.carried != nil { // the run again ended before it took the lock over
		r.carried.Unlock()
		r.carried = nil
	}
	return d
}
