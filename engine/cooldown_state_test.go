package engine

import (
	"fmt"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/livetest"
)

// TestCoolingDownSaysWhyAndUntil (issue 12): the screen reads the auto-pause's end and
// reason, and nothing once it is over.
func TestCoolingDownSaysWhyAndUntil(t *testing.T) {
	clock := livetest.NewClock(livetest.Epoch)
	e := &Engine{Now: clock.Now}
	if until, why := e.CoolingDown(); !until.IsZero() || why != "" {
		t.Fatalf("before any denial: %v %q, want nothing", until, why)
	}
	for range denialBurst {
		e.noteDenial("strategy", "place_order", live.Reason("mandate:exclude_symbols"))
	}
	until, why := e.CoolingDown()
	if want := livetest.Epoch.Add(coolDown); !until.Equal(want) || why != "strategy: 5 denied writes within a minute" {
		t.Errorf("got %v %q, want %v %q", until, why, want, "strategy: 5 denied writes within a minute")
	}
	clock.Advance(coolDown + time.Second)
	if until, why := e.CoolingDown(); !until.IsZero() || why != "" {
		t.Errorf("after the pause: %v %q, want nothing", until, why)
	}
}

// TestCoolingDownPerAgent (issue 27 item 7): one agent's denials pause that agent alone; a
// busy submit lock is a retry and never counts; the screen names the paused agent.
func TestCoolingDownPerAgent(t *testing.T) {
	clock := livetest.NewClock(livetest.Epoch)
	e := &Engine{Now: clock.Now}
	for range 2 * denialBurst {
		e.noteDenial("mcp:b@1#2", "place_order", live.ReasonLockBusy)
	}
	for range denialBurst {
		e.noteDenial("mcp:a@1#1", "place_order", live.Reason("mandate:exclude_symbols"))
	}
	for _, tc := range []struct {
		key    string
		paused bool
	}{{"mcp:a@1#1", true}, {"mcp:b@1#2", false}, {"strategy", false}} {
		if got := e.coolingDown(tc.key) > 0; got != tc.paused {
			t.Errorf("%s paused = %v, want %v", tc.key, got, tc.paused)
		}
	}
	if until, why := e.CoolingDown(); !until.Equal(livetest.Epoch.Add(coolDown)) || why != "mcp:a@1#1: 5 denied writes within a minute" {
		t.Errorf("CoolingDown() = %v %q, want %v and agent mcp:a@1#1 named", until, why, livetest.Epoch.Add(coolDown))
	}
}

// TestPacesSwept: the pacing of agents long gone is dropped once many are tracked.
func TestPacesSwept(t *testing.T) {
	clock := livetest.NewClock(livetest.Epoch)
	e := &Engine{Now: clock.Now}
	for i := range maxPaces {
		e.noteDenial(fmt.Sprintf("mcp:c@1#%d", i), "place_order", live.Reason("mandate:exclude_symbols"))
	}
	clock.Advance(2 * denialWindow)
	e.noteDenial("mcp:last@1#1", "place_order", live.Reason("mandate:exclude_symbols"))
	if got := len(e.paces); got != 1 {
		t.Errorf("paces tracked after the sweep: got %d, want 1", got)
	}
}
