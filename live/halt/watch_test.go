package halt_test

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/live/livetest"
)

func waitState(t *testing.T, ch <-chan halt.State, want bool) halt.State {
	t.Helper()
	return livetest.WaitFor(t, ch, fmt.Sprintf("state with halted=%v", want), func(s halt.State) bool { return s.Halted == want })
}

func TestWatcherSeesExternalTouchAndRunsTheActionOncePerTrip(t *testing.T) {
	root := livetest.Root(t)
	var runs atomic.Int32
	actions := &halt.Actions{}
	actions.Register("", func(ctx context.Context, broker string) halt.Result { runs.Add(1); return nil })
	w := &halt.Watcher{Root: root, Brokers: []string{"paper"}, Actions: actions, Poll: 200 * time.Millisecond}
	ch := w.Subscribe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.Run(ctx)
	waitState(t, ch, false)
	// An external `touch` of the broker sentinel, no JSON content.
	if err := os.WriteFile(root.SentinelPath(live.HaltSentinel, "paper"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := waitState(t, ch, true)
	if s.Trip == 0 {
		t.Fatalf("state %+v has no trip number", s)
	}
	os.WriteFile(root.SentinelPath(live.HaltSentinel, "paper"), []byte("again"), 0o644) // same trip
	time.Sleep(400 * time.Millisecond)
	if err := os.Remove(root.SentinelPath(live.HaltSentinel, "paper")); err != nil {
		t.Fatal(err)
	}
	waitState(t, ch, false)
	halt.Trip(root, live.HaltSentinel, live.GlobalScope, "cli", "second", time.Now())
	waitState(t, ch, true)
	deadline := time.Now().Add(5 * time.Second)
	for runs.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	if got := runs.Load(); got != 2 {
		t.Fatalf("halt action ran %d times for 2 trips", got)
	}
}

func TestHaltActionsFallback(t *testing.T) {
	var h halt.Actions
	if _, ok := h.Invoke(context.Background(), "robinhood"); ok {
		t.Fatal("nothing registered, yet an action ran")
	}
	h.Register("robinhood", func(_ context.Context, b string) halt.Result { return tagged("rh:" + b) })
	h.Register("", func(_ context.Context, b string) halt.Result { return tagged("global:" + b) })
	if got, _ := h.Invoke(context.Background(), "robinhood"); got != tagged("rh:robinhood") {
		t.Fatalf("got %v", got)
	}
	if got, _ := h.Invoke(context.Background(), "alpaca"); got != tagged("global:alpaca") {
		t.Fatalf("got %v", got)
	}
	if !h.Unregister("robinhood") || h.Unregister("robinhood") {
		t.Fatal("unregister must report whether there was an action")
	}
}

// tagged is a halt action's result that names the registration that ran.
type tagged string

func (tagged) Flat() bool { return false }
