package store

import (
	"sync"
	"time"
)

// lazyAnchor holds the head waiting to be anchored when AnchorEvery is set.
type lazyAnchor struct {
	mu      sync.Mutex
	pending Head
	timer   *time.Timer
	last    time.Time
	err     error // a failed background write, reported by the next probe, write-ahead or commit
	closed  bool
	writing sync.WaitGroup // a background write scheduled or under way
}

// anchorErr is a failed background anchor write, or nil. The audit probe and the write-ahead
// row return it, so no order is sent once the store knows its anchor could not be written.
func (db *DB) anchorErr() error {
	l := &db.lazy
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// moveAnchor moves the anchor to h after a commit: at once when AnchorEvery is zero, else at
// most every AnchorEvery in the background. An earlier background failure is returned here,
// so the write that follows it fails (and the gate halts, DV15).
func (db *DB) moveAnchor(h Head) error {
	if db.anchor == "" {
		return nil
	}
	if db.AnchorEvery <= 0 {
		return db.anchorHead(h)
	}
	l := &db.lazy
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	if l.closed {
		return errClosed
	}
	if h.Seq > l.pending.Seq {
		l.pending = h
	}
	if l.timer == nil {
		wait := max(0, db.AnchorEvery-time.Since(l.last))
		l.writing.Add(1)
		l.timer = time.AfterFunc(wait, func() {
			defer l.writing.Done()
			db.writePending()
		})
	}
	return nil
}

// writePending writes the pending head (the background half of moveAnchor).
func (db *DB) writePending() error {
	l := &db.lazy
	l.mu.Lock()
	h := l.pending
	l.pending, l.timer, l.last = Head{}, nil, time.Now()
	l.mu.Unlock()
	if h.Seq == 0 {
		return nil
	}
	err := db.anchorHead(h)
	if err != nil {
		l.mu.Lock()
		if l.err == nil {
			l.err = err
		}
		l.mu.Unlock()
	}
	return err
}

// flushAnchor writes a pending head now and stops background writes (Close).
func (db *DB) flushAnchor() error {
	l := &db.lazy
	l.mu.Lock()
	if l.timer != nil && l.timer.Stop() { // it will not run: its write is done here
		l.writing.Done()
	}
	l.closed = true
	l.mu.Unlock()
	l.writing.Wait() // a background write that already took the pending head ends first
	if err := db.writePending(); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}
