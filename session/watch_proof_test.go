package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
)

// replayHome is a runtime root whose replay agent does not wait, with a script of n market
// buys; it returns the home and the script.
func replayHome(t *testing.T, n int) (string, string) {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("[agents.replay]\nspeed = 0.0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"t": %d, "tool": "place_order", "args": {"symbol": "AAPL", "side": "buy", "notional": %d, "reason": "r"}}`+"\n", i, 100+i)
	}
	script := filepath.Join(home, "orders.jsonl")
	if err := os.WriteFile(script, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, script
}

// decisionLog keeps a session's gate decisions and closes first at the first one.
type decisionLog struct {
	mu    sync.Mutex
	all   []gate.Decision
	once  sync.Once
	first chan struct{}
}

// watch keeps s's decisions.
func (l *decisionLog) watch(s *Session) {
	s.gate.OnDecision = func(d gate.Decision) {
		l.mu.Lock()
		l.all = append(l.all, d)
		l.mu.Unlock()
		l.once.Do(func() { close(l.first) })
	}
}

// waitFor polls ok for up to 30 s.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 30 s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (l *decisionLog) decisions() []gate.Decision {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]gate.Decision(nil), l.all...)
}

// TestFirstOrderWaitsForTheWatcher is issue 27 item 6's first repro: the halt watcher cannot
// watch live/ (`chmod 0300 live` for a user; a hook here, as root ignores mode bits), and
// the failure lands after the agent's first order (the hook holds it until that order is
// decided, or 2 s). Five replayed orders: none is forwarded, each is DENY halted, and the
// watcher's latch is set (today the first order is ALLOWed before the HALT).
func TestFirstOrderWaitsForTheWatcher(t *testing.T) {
	home, script := replayHome(t, 5)
	o := testOptions(home)
	o.Agent, o.Script = "replay", script
	log := &decisionLog{first: make(chan struct{})}
	held, release := context.WithTimeout(context.Background(), 2*time.Second)
	defer release()
	defer halt.FailWatches(func(dir string) error {
		select {
		case <-log.first:
		case <-held.Done():
		}
		return errors.New("permission denied")
	})()
	s, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	log.watch(s)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx) }()
	// The latch pauses the agent for good: the run is over once it is paused.
	waitFor(t, "the watcher's latch and a paused agent", func() bool { on, _ := s.latch.Halted(); return on && s.eng.Paused() })
	cancel()
	<-done
	for _, d := range log.decisions() {
		if d.Forwarded || d.Reason != live.ReasonHalted {
			t.Errorf("order %s: %s %s (forwarded %v), want DENY halted before any forward", d.ClientOrderID, d.Verdict, d.Reason, d.Forwarded)
		}
	}
	if pos, _ := s.broker.Positions(context.Background()); len(pos) != 0 {
		t.Errorf("positions at the broker: %+v, want none", pos)
	}
	t.Logf("%d orders decided", len(log.decisions()))
	if on, why := s.latch.Halted(); !on || !strings.Contains(why, "permission denied") {
		t.Errorf("latch: %v %q, want set by the watcher's error", on, why)
	}
}
