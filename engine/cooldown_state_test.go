package engine

import (
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
		e.noteDenial("place_order", live.Reason("mandate:exclude_symbols"))
	}
	until, why := e.CoolingDown()
	if want := livetest.Epoch.Add(coolDown); !until.Equal(want) || why != "5 denied writes within a minute" {
		t.Errorf("got %v %q, want %v %q", until, why, want, "5 denied writes within a minute")
	}
	clock.Advance(coolDown + time.Second)
	if until, why := e.CoolingDown(); !until.IsZero() || why != "" {
		t.Errorf("after the pause: %v %q, want nothing", until, why)
	}
}
