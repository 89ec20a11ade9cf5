package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// pageCheck is the store's start-up check of its pages (quick_check over the whole file). It
// reads the whole database, seconds on a root of 1,000,000 events, so it runs beside the
// screen: the screen is up at once, the agent's first turn waits for it, and every order
// waits for it in the gate (StoreChecked). Damage trips HALTED audit_unavailable naming the
// first bad event before any order goes out (DV15).
type pageCheck struct {
	done   chan struct{} // closed once the check has finished (a failure has tripped the latch first)
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// finished is closed once the check has finished (or was not run: the chain's check failed,
// and the latch is set).
func (c *pageCheck) finished() <-chan struct{} {
	if c.done == nil {
		return closedChan
	}
	return c.done
}

var closedChan = func() chan struct{} { ch := make(chan struct{}); close(ch); return ch }()

// bigStore is the database size from which the screen says that orders wait for the check.
const bigStore = 64 << 20

// checkPages starts the page check and makes the gate's orders wait for it.
func (s *Session) checkPages() {
	ctx, cancel := context.WithCancel(context.Background())
	c := &s.pages
	c.cancel = cancel
	s.closers = append(s.closers, func() { c.cancel(); c.wg.Wait() })
	if fi, err := os.Stat(s.rt.DB.Path()); err == nil && fi.Size() >= bigStore {
		s.notes = append(s.notes, fmt.Sprintf("checking the audit store (%d MB) beside the screen: orders wait until it has passed", fi.Size()>>20))
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		start := time.Now()
		in := s.rt.DB.CheckPages(ctx)
		if ctx.Err() != nil { // the session closed first: no order goes out unchecked
			return
		}
		if msg := problemOf(in); msg != "" {
			s.gate.TripAuditHalt(errors.New(msg))
		} else if err := s.rt.DB.MarkVerified(context.Background(), s.integrity); err != nil {
			// The next start recomputes the chain from here on.
			s.rt.Log.Warn("audit head checkpoint not written", "err", err)
		}
		s.rt.Log.Info("audit store pages checked", "took", time.Since(start).String(), "problem", in.Problem)
		close(c.done)
	}()
}
