package session

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/store"
)

// TestCloseWaitsForHaltAction: a halt action still running when the session closes keeps the
// store open until it ends (issue 11 item 7: it ran on context.Background() outside the
// session's wait group and could outlive the database).
func TestCloseWaitsForHaltAction(t *testing.T) {
	s := testSession(t)
	started, release := make(chan struct{}), make(chan struct{})
	var done atomic.Bool
	var queryErr error
	s.watcher.Actions.Register(s.key, func(ctx context.Context, _ string) halt.Result {
		close(started)
		<-release
		for range 50 { // the action's own audit and broker work, after the session began closing
			if _, err := s.rt.DB.Events(ctx, store.Filter{Limit: 1}); err != nil && queryErr == nil {
				queryErr = err
			}
		}
		done.Store(true)
		return nil
	})
	if _, err := halt.Trip(s.rt.Root, live.HaltSentinel, live.Scope{Broker: s.key}, "test", "halt action", time.Now()); err != nil {
		t.Fatal(err)
	}
	s.watcher.Recheck() // the watcher sees the trip and starts the halt action
	<-started
	close(release)
	s.Close()
	if !done.Load() {
		t.Fatal("close returned while the halt action was still running")
	}
	if queryErr != nil {
		t.Errorf("the halt action found the store closed under it: %v", queryErr)
	}
}

// lockProbe is a broker that notes whether flattenMu was free when a flatten read its orders.
type lockProbe struct {
	live.Broker
	mu        *sync.Mutex
	unguarded atomic.Bool
}

func (b *lockProbe) OpenOrders(ctx context.Context) ([]live.Order, error) {
	if b.mu.TryLock() {
		b.mu.Unlock()
		b.unguarded.Store(true)
	}
	return b.Broker.OpenOrders(ctx)
}

// TestQuitFlattensUnderFlattenMu: the on_quit flatten holds flattenMu like the watcher's halt
// action and an operator's flatten, so two flattens never cancel the same orders at once.
func TestQuitFlattensUnderFlattenMu(t *testing.T) {
	s := testSession(t)
	probe := &lockProbe{Broker: s.broker, mu: &s.flattenMu}
	s.broker, s.onQuit = probe, "halt"
	if _, halted := s.Quit("test quit"); !halted {
		t.Fatal("on_quit halt did not halt")
	}
	if probe.unguarded.Load() {
		t.Error("the on_quit flatten read the broker's orders without holding flattenMu")
	}
}
