package wasmplugin

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// budget is a tick's time budget. It runs while the guest runs and pauses while a host call
// runs (a tool call may wait for the gate, the audit write or a human's review, which is not
// the plugin's time). When it runs out it cancels the tick's context, and the runtime
// (WithCloseOnContextDone) stops and closes the module.
type budget struct {
	mu      sync.Mutex
	total   time.Duration
	left    time.Duration
	resumed time.Time
	timer   *time.Timer
	stop    context.CancelFunc
	spent   atomic.Bool
}

func newBudget(d time.Duration, stop context.CancelFunc) *budget {
	b := &budget{total: d, left: d, stop: stop}
	b.mu.Lock()
	b.resumeLocked()
	b.mu.Unlock()
	return b
}

func (b *budget) resumeLocked() {
	b.resumed = time.Now()
	b.timer = time.AfterFunc(max(b.left, 0), func() {
		b.spent.Store(true)
		b.stop()
	})
}

// pause stops the clock for a host call.
func (b *budget) pause() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.timer != nil && b.timer.Stop() {
		b.left -= time.Since(b.resumed)
	}
	b.timer = nil
}

// resume restarts the clock after a host call.
func (b *budget) resume() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.timer == nil && !b.spent.Load() {
		b.resumeLocked()
	}
}

// end stops the clock for good.
func (b *budget) end() { b.pause() }

// used is how much of the budget the guest has spent.
func (b *budget) used() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	left := b.left
	if b.timer != nil {
		left -= time.Since(b.resumed)
	}
	return min(b.total-left, b.total)
}
