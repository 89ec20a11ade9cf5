package gate

import (
	"context"
	"fmt"
	"sync"
	"time"

	"cockpit/live"
	"cockpit/live/halt"
)

// AuditHalt is the gate's in-memory halt latch: once set it stays set for the life of the gate,
// whatever the disk allows (the HALT sentinel is written too when it can be).
type AuditHalt struct {
	Reason live.Reason
	Detail string
	At     time.Time
}

// Message is a one-line account of the latch.
func (h AuditHalt) Message() string {
	return fmt.Sprintf("HALTED %s: %s", h.Reason, h.Detail)
}

// haltLatch guards the latch; the first trip wins.
type haltLatch struct {
	mu  sync.Mutex
	set *AuditHalt
}

// Latched returns the in-memory halt latch, if it is set.
func (g *Gate) Latched() (AuditHalt, bool) {
	g.latch.mu.Lock()
	defer g.latch.mu.Unlock()
	if g.latch.set == nil {
		return AuditHalt{}, false
	}
	return *g.latch.set, true
}

// TripAuditHalt sets the latch (HALTED audit_unavailable), writes the global HALT sentinel when
// none is there and the disk allows, and tells OnHalt. Later trips keep the first cause.
func (g *Gate) TripAuditHalt(cause error) {
	g.tripLatch(live.ReasonAuditUnavailable, errText(cause, "audit unavailable"))
}

func (g *Gate) tripLatch(reason live.Reason, detail string) {
	now := g.now()
	g.latch.mu.Lock()
	first := g.latch.set == nil
	if first {
		g.latch.set = &AuditHalt{Reason: reason, Detail: detail, At: now}
	}
	g.latch.mu.Unlock()
	if !first {
		return
	}
	if !halt.IsGloballyHalted(g.Root) && g.Root.Dir() != "" {
		_, _ = halt.Trip(g.Root, live.HaltSentinel, live.GlobalScope, "cockpit", string(reason)+": "+detail, now)
	}
	if g.OnHalt != nil {
		g.OnHalt(AuditHalt{Reason: reason, Detail: detail, At: now})
	}
}

// latchDenial is the denial for an order met by a set latch.
func (g *Gate) latchDenial(at string) *live.Denial {
	h, ok := g.Latched()
	if !ok {
		return nil
	}
	return live.NewDenial(h.Reason, "error", h.Detail, "at", at)
}

// haltDenial is the gate's halt check: the sentinels, then the latch; nil when neither halts.
func (g *Gate) haltDenial(key string, kv ...string) *live.Denial {
	if halt.IsHalted(g.Root, key) {
		return live.NewDenial(live.ReasonHalted, append([]string{"broker", key}, kv...)...)
	}
	if on, why := g.Latch.Halted(); on {
		return live.NewDenial(live.ReasonHalted, append([]string{"broker", key, "latched", why}, kv...)...)
	}
	if !g.watcherReady() {
		return live.NewDenial(live.ReasonHalted, append([]string{"broker", key, "latched", notProven}, kv...)...)
	}
	return nil
}

// notProven is why an order is halted before the halt watcher has proven it sees changes.
const notProven = "the halt watcher has not yet proven it sees changes"

// watcherReady reports whether WatcherReady is closed (or not set).
func (g *Gate) watcherReady() bool {
	if g.WatcherReady == nil {
		return true
	}
	select {
	case <-g.WatcherReady:
		return true
	default:
		return false
	}
}

// DefaultStoreWait is how long an order waits for the store's start-up check at most.
const DefaultStoreWait = time.Minute

// storeUnchecked is why an order is halted when the store's start-up check has not finished.
const storeUnchecked = "the audit store's start-up check has not finished"

// storeDenial waits for StoreChecked (at most StoreWait, or until ctx ends); nil once it is
// closed or not set. A check that failed has tripped the latch, which denies the order next.
func (g *Gate) storeDenial(ctx context.Context, key string) *live.Denial {
	if g.StoreChecked == nil {
		return nil
	}
	select {
	case <-g.StoreChecked:
		return nil
	default:
	}
	wait := g.StoreWait
	if wait <= 0 {
		wait = DefaultStoreWait
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-g.StoreChecked:
		return nil
	case <-ctx.Done():
	case <-t.C:
	}
	return live.NewDenial(live.ReasonHalted, "broker", key, "latched", storeUnchecked)
}
