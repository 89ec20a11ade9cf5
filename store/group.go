package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
)

// groupOp is one caller's write waiting for a group commit.
type groupOp struct {
	ctx  context.Context
	fn   func(tx *sql.Tx) (Head, error) // Head.Seq > 0: the op appended events that move the anchor
	err  error
	head Head
	lead chan bool // true: the caller leads the next group; false: its result is in err
}

// committer gathers concurrent writes into one transaction (group commit): the first caller
// leads, runs every write queued by then in one BEGIN IMMEDIATE … COMMIT (one fsync for all),
// each inside its own savepoint so a failing write is undone alone, then hands the lead to the
// first caller that queued meanwhile. Nobody returns before its write is committed, so a crash
// loses only writes that were never acknowledged.
type committer struct {
	mu      sync.Mutex
	busy    bool
	pending []*groupOp
}

// txGroup runs fn in a write transaction shared with the writes of concurrent callers and
// returns once that transaction is committed (or fn or the commit failed). After the commit
// the followers are woken and the anchor is moved to the newest anchor-worthy head.
func (db *DB) txGroup(ctx context.Context, fn func(tx *sql.Tx) (Head, error)) error {
	op := &groupOp{ctx: ctx, fn: fn, lead: make(chan bool, 1)}
	c := &db.group
	c.mu.Lock()
	c.pending = append(c.pending, op)
	leader := !c.busy
	c.busy = true
	c.mu.Unlock()
	if !leader && !<-op.lead {
		return op.err
	}
	c.mu.Lock()
	batch := c.pending
	c.pending = nil
	c.mu.Unlock()
	db.runGroup(batch)
	c.mu.Lock()
	if len(c.pending) > 0 {
		c.pending[0].lead <- true
	} else {
		c.busy = false
	}
	c.mu.Unlock()
	for _, o := range batch {
		if o != op {
			o.lead <- false
		}
	}
	return op.err
}

// runGroup runs batch in one transaction and sets each op's err.
func (db *DB) runGroup(batch []*groupOp) {
	fail := func(err error) {
		for _, o := range batch {
			if o.err == nil {
				o.err = err
			}
		}
	}
	tx, err := db.w.BeginTx(context.Background(), nil)
	if err != nil {
		fail(wrap(err))
		return
	}
	defer tx.Rollback()
	ran := 0
	for i, o := range batch {
		if err := o.ctx.Err(); err != nil { // the caller gave up before its write began
			o.err = err
			continue
		}
		if len(batch) == 1 { // alone: a failure rolls the whole transaction back
			o.head, o.err = o.fn(tx)
			if o.err != nil {
				o.err = wrap(o.err)
				return
			}
			ran++
			continue
		}
		if _, err := db.txExec(context.Background(), tx, `SAVEPOINT op`); err != nil {
			fail(wrap(err))
			return
		}
		o.head, o.err = o.fn(tx)
		if o.err != nil {
			o.err = wrap(o.err)
			if _, err := db.txExec(context.Background(), tx, `ROLLBACK TO op`); err != nil { // SQLite rolled the whole transaction back
				fail(fmt.Errorf("group commit aborted by write %d: %w", i, o.err))
				return
			}
		} else {
			ran++
		}
		if _, err := db.txExec(context.Background(), tx, `RELEASE op`); err != nil {
			fail(wrap(err))
			return
		}
	}
	if ran == 0 {
		return
	}
	if err := tx.Commit(); err != nil {
		err = wrap(err)
		for _, o := range batch {
			if o.err == nil {
				o.err = err
				o.head = Head{}
			}
		}
		return
	}
	db.notify.wake()
	var head Head
	for _, o := range batch {
		if o.err == nil && o.head.Seq > head.Seq {
			head = o.head
		}
	}
	if head.Seq == 0 {
		return
	}
	// The writes are in; an anchor that cannot follow is still a failure (DV15): it is
	// reported to the writes of this group, or, when the anchor is written later, to the next.
	if err := db.moveAnchor(head); err != nil {
		for _, o := range batch {
			if o.err == nil && o.head.Seq > 0 {
				o.err = err
			}
		}
	}
}

// errClosed reports a write after Close.
var errClosed = errors.New("store is closed")
