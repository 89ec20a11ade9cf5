package gate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/live/livetest"
)

// TestDanglingSymlinkHalts: the name is the halt, whatever it points to (issue 10 item 5).
func TestDanglingSymlinkHalts(t *testing.T) {
	for _, scope := range []live.Scope{live.GlobalScope, live.BrokerScope("paper")} {
		t.Run(scope.String(), func(t *testing.T) {
			f := newFixture(t, "")
			path := f.root.SentinelPath(live.HaltSentinel, scope.Broker)
			if err := os.Symlink(filepath.Join(t.TempDir(), "nowhere"), path); err != nil {
				t.Fatal(err)
			}
			if got := halt.StateOf(f.root, "paper"); got != live.Halted {
				t.Errorf("state with a dangling HALT symlink = %s, want HALTED", got)
			}
			if a, err := halt.ReadSentinel(f.root, live.HaltSentinel, scope); err != nil || a == nil {
				t.Errorf("ReadSentinel = %v, %v; want an (empty) attribution", a, err)
			}
			if d := f.buy("AAPL", "10", ""); d.Reason != live.ReasonHalted || d.Forwarded {
				t.Errorf("order with a dangling HALT symlink: %s %s forwarded=%v, want DENY halted", d.Verdict, d.Reason, d.Forwarded)
			}
		})
	}
}

// TestUnrecognisedSentinels: a HALT in live/PAPER does not halt paper, but it is reported.
func TestUnrecognisedSentinels(t *testing.T) {
	root := livetest.Root(t)
	for _, d := range []string{"PAPER", "paper", " alpaca"} {
		os.MkdirAll(filepath.Join(root.LiveDir(), d), 0o700)
	}
	os.WriteFile(filepath.Join(root.LiveDir(), "PAPER", "HALT"), nil, 0o644)
	os.WriteFile(filepath.Join(root.LiveDir(), " alpaca", "REDUCE_ONLY"), nil, 0o644)
	os.WriteFile(filepath.Join(root.LiveDir(), "paper", "mandate.json"), nil, 0o644)
	got := halt.UnrecognisedSentinels(root)
	want := []string{filepath.Join(root.LiveDir(), " alpaca", "REDUCE_ONLY"), filepath.Join(root.LiveDir(), "PAPER", "HALT")}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("UnrecognisedSentinels = %q, want %q", got, want)
	}
}

// TestWatcherLosingItsDirectoryHalts: the broker directory is moved away and back while the
// watcher runs; its watch is gone, so the broker counts as halted and the gate denies (today
// the orders go through).
func TestWatcherLosingItsDirectoryHalts(t *testing.T) {
	f := newFixture(t, "")
	w := &halt.Watcher{Root: f.root, Brokers: []string{"paper"}, Poll: 100 * time.Millisecond}
	ch := w.Subscribe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.Run(ctx)
	waitState(t, ch, false)
	dir := f.root.BrokerDir("paper")
	if err := os.Rename(dir, dir+".away"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dir+".away", dir); err != nil {
		os.RemoveAll(dir) // the poll may have recreated it first
		if err := os.Rename(dir+".away", dir); err != nil {
			t.Fatal(err)
		}
	}
	waitState(t, ch, true)
	if d := f.buy("AAPL", "10", ""); d.Reason != live.ReasonHalted || d.Forwarded {
		t.Fatalf("order after the watch was lost: %s %s forwarded=%v, want DENY halted", d.Verdict, d.Reason, d.Forwarded)
	}
}

// TestLatchHaltsWhenTheDiskCannot: with the live directory gone the watcher cannot write the
// HALT file; its latch still halts the gate, the watcher's state and survives the directory's
// return until cleared.
func TestLatchHaltsWhenTheDiskCannot(t *testing.T) {
	f := newFixture(t, "")
	latch := &halt.Latch{}
	f.gate.Latch = latch
	var latchedMu sync.Mutex
	var latched []string
	w := &halt.Watcher{Root: f.root, Brokers: []string{"paper"}, Poll: 100 * time.Millisecond, Latch: latch,
		OnLatch: func(why string) { latchedMu.Lock(); latched = append(latched, why); latchedMu.Unlock() }}
	ch := w.Subscribe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.Run(ctx)
	waitState(t, ch, false)
	liveDir := f.root.LiveDir()
	if err := os.Rename(liveDir, liveDir+".away"); err != nil {
		t.Fatal(err)
	}
	s := waitState(t, ch, true)
	cancel()
	os.RemoveAll(liveDir)
	if err := os.Rename(liveDir+".away", liveDir); err != nil {
		t.Fatal(err)
	}
	if on, why := latch.Halted(); !on {
		t.Fatalf("latch not set (state %+v)", s)
	} else {
		t.Logf("latched: %s", why)
	}
	latchedMu.Lock()
	if len(latched) != 1 {
		t.Errorf("OnLatch saw %q, want one reason", latched)
	}
	latchedMu.Unlock()
	os.Remove(f.root.SentinelPath(live.HaltSentinel, "")) // whatever the disk says
	if d := f.buy("AAPL", "10", ""); d.Reason != live.ReasonHalted || d.Forwarded {
		t.Fatalf("order while latched: %s %s forwarded=%v, want DENY halted", d.Verdict, d.Reason, d.Forwarded)
	}
	latch.Clear()
	if d := f.buy("AAPL", "10", ""); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("order after the latch was cleared: %s %s", d.Verdict, d.Reason)
	}
}

// TestWatcherReportsSentinelChanges: an external touch and rm of HALT are reported once each,
// so the session can audit them; the state at start is not a change.
func TestWatcherReportsSentinelChanges(t *testing.T) {
	root := livetest.Root(t)
	os.MkdirAll(root.BrokerDir("paper"), 0o700)
	os.WriteFile(root.SentinelPath(live.ReduceOnlySentinel, ""), nil, 0o644) // there at start
	var mu sync.Mutex
	var got []halt.SentinelChange
	w := &halt.Watcher{Root: root, Brokers: []string{"paper"}, Poll: 100 * time.Millisecond,
		OnSentinel: func(c halt.SentinelChange) { mu.Lock(); got = append(got, c); mu.Unlock() }}
	ch := w.Subscribe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.Run(ctx)
	waitState(t, ch, false)
	path := root.SentinelPath(live.HaltSentinel, "paper")
	os.WriteFile(path, nil, 0o644)
	waitState(t, ch, true)
	os.Remove(path)
	waitState(t, ch, false)
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0].Path != path || !got[0].Exists || got[1].Exists || got[0].Scope.Broker != "paper" || got[0].Sentinel != live.HaltSentinel {
		t.Fatalf("changes %+v, want HALT (paper) appearing then disappearing", got)
	}
}

// waitState waits for a watcher state with Halted == want.
func waitState(t *testing.T, ch <-chan halt.State, want bool) halt.State {
	t.Helper()
	return livetest.WaitFor(t, ch, fmt.Sprintf("state with halted=%v", want), func(s halt.State) bool { return s.Halted == want })
}

// TestNoOrderBeforeTheWatcherIsProven: with a halt watcher that has not yet proven it sees
// changes, an order is DENY halted and never forwarded; once it is proven the same order goes.
func TestNoOrderBeforeTheWatcherIsProven(t *testing.T) {
	f := newFixture(t, "")
	w := &halt.Watcher{Root: f.root, Brokers: []string{"paper"}}
	f.gate.WatcherReady = w.Ready()
	if d := f.buy("AAPL", "10", ""); d.Reason != live.ReasonHalted || d.Forwarded {
		t.Fatalf("order before the watcher is proven: %s %s forwarded=%v, want DENY halted", d.Verdict, d.Reason, d.Forwarded)
	}
	w.Prove()
	defer w.Close()
	if d := f.buy("AAPL", "10", ""); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("order after the watcher is proven: %s %s, want accepted", d.Verdict, d.Reason)
	}
}
