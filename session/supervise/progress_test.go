package supervise

import (
	"context"
	"sync"
	"testing"

	"cockpit/readmodel"

	"cockpit/live/gate"
	"cockpit/session"
)

// TestSupervisorSeesEveryFlattenStep: a flatten run by the owner hands the supervisor every
// progress step, not only the newest one at each poll. The owner's steps came faster than the
// supervisor's reads, so its dialog said "Close positions ✓ none" while two positions were
// closed (seen at 80×24 in a real terminal).
func TestSupervisorSeesEveryFlattenStep(t *testing.T) {
	home := t.TempDir()
	s, _ := owner(t, home)
	syms := []string{"AAPL", "MSFT", "NVDA", "TSLA"}
	for _, sym := range syms {
		r := s.Engine().NewTurn("strategy").Call(context.Background(), "place_order",
			map[string]any{"symbol": sym, "side": "buy", "notional": "100", "reason": "test"})
		if !r.OK() {
			t.Fatalf("place_order %s: %+v", sym, r)
		}
	}
	sup := supervisor(t, home)
	eventually(t, sup, "the owner", func(s readmodel.Snapshot) bool { return s.Supervising != "" && !s.OwnerGone })
	var mu sync.Mutex
	closed := map[string]bool{}
	var phases []gate.FlattenPhase
	rep := sup.Flatten(session.WithOperator(context.Background(), "tui:sup-tester"), func(p gate.FlattenProgress) {
		mu.Lock()
		defer mu.Unlock()
		phases = append(phases, p.Phase)
		if p.Phase == gate.PhaseClose && p.Item != "" {
			closed[p.Item] = true
		}
	})
	if !rep.Flat() {
		t.Fatalf("flatten: %s", rep.Summary())
	}
	for _, sym := range syms {
		if !closed[sym] {
			t.Errorf("no close step for %s reached the supervisor; phases seen %v", sym, phases)
		}
	}
	if n := len(phases); n == 0 || phases[n-1] != gate.PhaseDone {
		t.Errorf("last phase seen %v, want done", phases)
	}
}
