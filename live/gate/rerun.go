package gate

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"time"

	"cockpit/live/counter"
)

// dayMark is what another order on a broker changes: the bytes of the counter file (every
// gate and the reference write it after a forward), the journal's accepted orders today
// (every cockpit gate's forwards, also when its counter write failed) and the submit lock
// file (every reduce-only close, which counts against no day). An order takes the
// mark before its reads and again once it holds the submit lock: a different mark means
// another process forwarded in between, on a book this order did not read. The mark taken
// under the lock is also what the order's day count is made of (DV14).
type dayMark struct {
	src     counter.Sources
	at      time.Time // the time the journal's day was read for
	book    []byte    // the submit lock file: reduce-only closes write it (counter.NoteBookChange)
	bookErr error
}

// dayMark reads key's mark now.
func (g *Gate) dayMark(ctx context.Context, key string) *dayMark {
	at := g.now()
	m := &dayMark{src: counter.ReadSources(ctx, g.Root, g.Journal, key, at), at: at}
	m.book, m.bookErr = os.ReadFile(g.Root.LockPath(key))
	if errors.Is(m.bookErr, fs.ErrNotExist) { // the lock makes it empty: the same mark
		m.bookErr = nil
	}
	return m
}

// same reports whether m and o read the same counter file, journal count and lock file (a
// mark not taken is never the same).
func (m *dayMark) same(o *dayMark) bool {
	if m == nil || o == nil {
		return false
	}
	a, b := m.src, o.src
	return bytes.Equal(a.File, b.File) && errText(a.FileErr, "") == errText(b.FileErr, "") &&
		a.Journaled == b.Journaled && errText(a.JournalErr, "") == errText(b.JournalErr, "") &&
		bytes.Equal(m.book, o.book) && errText(m.bookErr, "") == errText(o.bookErr, "")
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
