package tui

import (
	"cockpit/readmodel"

	"strings"
	"testing"
	"time"

	"cockpit/engine"
	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/live/money"
)

// pausedSnap is the sample with no review waiting and the agent auto-paused for a minute.
func pausedSnap(m *Model) readmodel.Snapshot {
	s := m.data.Snap
	s.Reviews = nil
	s.PauseWhy, s.PauseTill = "5 denied writes within a minute", livetestEpoch().Add(time.Minute)
	return s
}

func livetestEpoch() time.Time { return time.Date(2026, 6, 1, 15, 0, 0, 0, time.UTC) }

// TestAgentStatesOfTheirOwn (issue 12): an auto-paused agent and one blocked on reviews are
// not shown as ● ACTIVE.
func TestAgentStatesOfTheirOwn(t *testing.T) {
	m, _, clock := newTestModel(t, 200, 40)
	if !clock.Now().Equal(livetestEpoch()) {
		t.Fatalf("clock %v, want %v", clock.Now(), livetestEpoch())
	}
	tests := []struct {
		name    string
		mod     func(s *readmodel.Snapshot)
		want    string
		notWant string
	}{
		{"two reviews", func(*readmodel.Snapshot) {}, "⏳ WAITING FOR YOU (2 reviews)", "ACTIVE"},
		{"one review", func(s *readmodel.Snapshot) { s.Reviews = s.Reviews[:1] }, "⏳ WAITING FOR YOU (1 review)", "ACTIVE"},
		{"nothing waiting", func(s *readmodel.Snapshot) { s.Reviews = nil }, "● ACTIVE", "WAITING"},
		{"auto-paused", func(s *readmodel.Snapshot) {
			s.PauseWhy, s.PauseTill = "5 denied writes within a minute", clock.Now().Add(time.Minute)
		}, "⏸ PAUSED (5 denied writes within a minute, until 15:01:00 UTC)", "ACTIVE"},
		{"pause over", func(s *readmodel.Snapshot) {
			s.Reviews, s.PauseWhy, s.PauseTill = nil, "5 denied writes within a minute", clock.Now().Add(-time.Second)
		}, "● ACTIVE", "PAUSED"},
		{"reduce-only and paused", func(s *readmodel.Snapshot) {
			s.State, s.PauseWhy, s.PauseTill = live.ReduceOnly, "5 denied writes within a minute", clock.Now().Add(time.Minute)
		}, "◐ REDUCE-ONLY  ⏸ PAUSED (5 denied", "ACTIVE"},
		{"halted wins", func(s *readmodel.Snapshot) {
			s.State, s.PauseWhy, s.PauseTill = live.Halted, "5 denied writes within a minute", clock.Now().Add(time.Minute)
		}, "■ HALTED", "WAITING"},
	}
	base := m.data.Snap
	for _, tt := range tests {
		s := base
		tt.mod(&s)
		m.data.onSnapshot(s)
		bar := stripped(m.status.View(200))
		if !strings.Contains(bar, tt.want) || strings.Contains(bar, tt.notWant) {
			t.Errorf("%s: got %q, want %q and no %q", tt.name, bar, tt.want, tt.notWant)
		}
	}
}

// TestStaleFlashReplaced (issue 12): after U, an external halt replaces "resumed: trading
// is ACTIVE" in the footer; the header and the footer never disagree.
func TestStaleFlashReplaced(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	s := m.data.Snap
	s.State = live.Halted
	m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
	for _, k := range []string{"U", "y"} {
		run(m, press(m, k))
	}
	out := screen(m)
	if !strings.Contains(out, "resumed: trading is ACTIVE") {
		t.Fatalf("after U the footer should say resumed:\n%s", out)
	}
	m.Update(EngineMsg(engine.Event{Gen: 1, Kind: engine.EvHalt, Halt: &halt.State{Broker: "paper", Halted: true, Cause: "HALT file written by cli:bob"}}))
	out = screen(m)
	if !strings.Contains(out, "■ HALTED") {
		t.Fatalf("header not halted:\n%s", out)
	}
	if strings.Contains(out, "trading is ACTIVE") {
		t.Errorf("footer still says ACTIVE under a HALTED header:\n%s", out)
	}
	if !strings.Contains(out, "trading is now HALTED: HALT file written by cli:bob") {
		t.Errorf("footer does not say the new state:\n%s", out)
	}
	// The same through a snapshot (no event): a resumed message, then a halted snapshot.
	m, _, _ = newTestModel(t, 120, 40)
	s = m.data.Snap
	s.State = live.Halted
	m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
	for _, k := range []string{"U", "y"} {
		run(m, press(m, k))
	}
	s.State, s.HaltReason = live.Halted, "max drawdown"
	m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
	if out := screen(m); strings.Contains(out, "trading is ACTIVE") {
		t.Errorf("snapshot halt left the resumed message:\n%s", out)
	}
}

// TestPerOrderHeadroomIsPerOrder (issue 12): one approved breach earlier today does not keep
// the per-order gauge red; a resting order over the cap does.
func TestPerOrderHeadroomIsPerOrder(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	s := m.data.Snap
	s.LargestOrder, s.LastOrder, s.Breaches = money.MustParse("5950"), money.MustParse("1205"), 1
	m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
	out := screen(m)
	for _, want := range []string{"per-order notional ███░░░░░░░   33%", "last 1.21k · max today 5.95k", "1 approved breach today"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "119%") || strings.Contains(out, "OVER") {
		t.Errorf("a past approved breach shows as live:\n%s", out)
	}
	if name, worst := m.panes.headroom.worstHeadroom(); name == "per-order notional" || worst >= 100 {
		t.Errorf("worst headroom %s %.0f%%, want not the past breach", name, worst)
	}
	// A resting order over the cap is a live breach: red, OVER.
	big := s.Orders[0]
	big.Quantity = amtp("50") // 50 × 120.50 = 6025 > 5000
	s.Orders = append([]live.Order{big}, s.Orders[1:]...)
	m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
	if out := screen(m); !strings.Contains(out, "120% ✖ OVER") {
		t.Errorf("a resting order over the cap is not OVER:\n%s", out)
	}
	if name, _ := m.panes.headroom.worstHeadroom(); name != "per-order notional" {
		t.Errorf("worst headroom %s, want per-order notional", name)
	}
}
