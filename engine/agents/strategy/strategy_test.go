package strategy

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"cockpit/config"
	"cockpit/internal/enginetest"
	"cockpit/live"
	"cockpit/store"
)

// session runs the strategy for turns turns, 30 s apart, with no approver attached, and
// returns the audit trail.
func session(t *testing.T, seed int64, turns int) []store.Event {
	t.Helper()
	f := enginetest.New(t)
	f.Engine.Approver = false
	d := config.DefaultAgents().Strategy
	a, err := New(Config{Seed: seed, Symbols: d.Symbols, Notional: d.Notional})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < turns; i++ {
		if err := a.Turn(context.Background(), f.Engine.NewTurn(a.Name())); err != nil {
			t.Fatalf("turn %d: %v", i+1, err)
		}
		f.Clock.Advance(30 * time.Second)
		f.Paper.Advance()
	}
	return f.Events()
}

func digest(evs []store.Event) []string {
	var out []string
	for _, e := range evs {
		if e.ActorKind == string(live.ActorAgent) && enginetest.Terminal(e) {
			out = append(out, fmt.Sprintf("%s %s %s %s %s", e.Tool, e.Type, e.Reason, e.Outcome, e.Summary))
		}
	}
	return out
}

// TestDeterministic: the same seed on the same market makes the same calls with the same
// outcomes; another seed does not.
func TestDeterministic(t *testing.T) {
	a, b := digest(session(t, 7, 30)), digest(session(t, 7, 30))
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatalf("same seed, different sessions:\n%s\n---\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	if c := digest(session(t, 8, 30)); strings.Join(a, "\n") == strings.Join(c, "\n") {
		t.Error("seeds 7 and 8 made identical sessions")
	}
}

// TestMeetsTheLimits: run long enough, the strategy trades, breaches the order cap with a
// conviction order, is refused the excluded symbol, and hits the day's order count.
func TestMeetsTheLimits(t *testing.T) {
	evs := session(t, 7, 120)
	seen := map[string]int{}
	for _, e := range evs {
		switch {
		case e.Type == live.KindOrderPlaced:
			seen["placed"]++
		case e.Type == live.KindBreach:
			seen["breach:"+e.Reason]++
		case e.Type == live.KindOrderRejected:
			seen["denied:"+e.Reason]++
		}
	}
	t.Logf("outcomes: %v", seen)
	for _, want := range []string{"placed", "breach:" + live.LimitOrderNotional, "denied:no_approver", "breach:" + live.LimitTradesPerDay} {
		if seen[want] == 0 {
			t.Errorf("no %s in %v", want, seen)
		}
	}
}
