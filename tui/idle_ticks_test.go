package tui

import (
	"testing"
	"time"
)

// TestIdleTicksAreAligned: quiet, the render tick comes on the wall clock's half seconds (not
// every 200 ms), and the snapshot poll lands a tenth of its period before the mark, so the
// idle screen draws one frame a second with a fresh snapshot (issue 12, idle CPU).
func TestIdleTicksAreAligned(t *testing.T) {
	at := func(ms int) time.Time {
		return time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC).Add(time.Duration(ms) * time.Millisecond)
	}
	ticks := []struct {
		now  int
		fast bool
		want time.Duration
	}{
		{120, true, 200 * time.Millisecond},
		{120, false, 380 * time.Millisecond},
		{500, false, 500 * time.Millisecond},
		{999, false, time.Millisecond},
	}
	for _, c := range ticks {
		if got := tickDelay(at(c.now), 200*time.Millisecond, c.fast); got != c.want {
			t.Errorf("tickDelay(+%dms, fast %v) = %s, want %s", c.now, c.fast, got, c.want)
		}
	}
	polls := []struct {
		now  int
		want time.Duration
	}{
		{0, 900 * time.Millisecond},
		{905, 995 * time.Millisecond}, // just after a poll: the next second's, not at once
		{300, 600 * time.Millisecond},
		{450, 1450 * time.Millisecond}, // under half a period away: the next one
	}
	for _, c := range polls {
		if got := beforeMark(at(c.now), time.Second); got != c.want {
			t.Errorf("beforeMark(+%dms) = %s, want %s", c.now, got, c.want)
		}
	}
}
