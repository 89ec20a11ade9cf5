package paper

import (
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"cockpit/live/livetest"
	"cockpit/live/money"
)

// TestMarkEquitySurvivesARestart: the day's start equity and peak are kept in the saved
// account, so an account reloaded on the same day keeps both (the loss limits' baseline is
// not reset by a restart), and a new UTC day starts a new mark.
func TestMarkEquitySurvivesARestart(t *testing.T) {
	clock := livetest.NewClock(livetest.Epoch)
	var full atomic.Bool
	var saved []byte
	b := savingBroker(t, clock, &full, &saved)
	for _, eq := range []string{"1000", "1050", "990"} {
		if _, err := b.MarkEquity(clock.Now(), money.MustParse(eq)); err != nil {
			t.Fatal(err)
		}
	}
	var st State
	if err := json.Unmarshal(saved, &st); err != nil {
		t.Fatal(err)
	}
	again, err := New(Config{Market: MarketConfig{Seed: 7, Symbols: DefaultSymbols()}, Now: clock.Now, State: &st})
	if err != nil {
		t.Fatal(err)
	}
	m, err := again.MarkEquity(clock.Now(), money.MustParse("980"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Start.String()+"/"+m.Peak.String(), "1000/1050"; got != want {
		t.Fatalf("after a restart start/peak = %s, want %s", got, want)
	}
	if got, want := again.DayStart(clock.Now(), money.MustParse("1")), "1000"; got.String() != want {
		t.Fatalf("DayStart = %s, want %s", got, want)
	}
	clock.Advance(24 * time.Hour)
	m, _ = again.MarkEquity(clock.Now(), money.MustParse("970"))
	if got, want := m.Start.String()+"/"+m.Peak.String(), "970/970"; got != want {
		t.Fatalf("next day start/peak = %s, want %s", got, want)
	}
}

// TestMarkEquityUnsavedIsAnError: a mark the account cannot save is an error (the loss limits
// then fail closed) and the saved mark stands.
func TestMarkEquityUnsavedIsAnError(t *testing.T) {
	clock := livetest.NewClock(livetest.Epoch)
	var full atomic.Bool
	var saved []byte
	b := savingBroker(t, clock, &full, &saved)
	if _, err := b.MarkEquity(clock.Now(), money.MustParse("1000")); err != nil {
		t.Fatal(err)
	}
	full.Store(true)
	m, err := b.MarkEquity(clock.Now(), money.MustParse("2000"))
	if err == nil {
		t.Fatal("an unsaved peak was accepted")
	}
	if got, want := m.Peak.String(), "1000"; got != want {
		t.Fatalf("peak after a failed save = %s, want %s", got, want)
	}
}
