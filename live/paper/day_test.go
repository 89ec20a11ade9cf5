package paper

import (
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"cockpit/live/livetest"
	"cockpit/live/money"
)

// TestMarkEquitySurvivesARestart: the day's start equity and peak are part of the account's
// header, which every change hands the Store, so an account restored from what the Store took
// on the same day keeps both (the loss limits' baseline is not reset by a restart), and a new
// UTC day starts a new mark.
func TestMarkEquitySurvivesARestart(t *testing.T) {
	clock := livetest.NewClock(livetest.Epoch)
	saved := &wholeStore{st: &State{}}
	b := savingBroker(t, clock, saved)
	for _, eq := range []string{"1000", "1050", "990"} {
		if _, err := b.MarkEquity(clock.Now(), money.MustParse(eq)); err != nil {
			t.Fatal(err)
		}
	}
	if len(saved.changes) != 2 { // the start, then the new peak; 990 moves nothing
		t.Fatalf("changes saved = %d, want 2 (the day's start and its new peak)", len(saved.changes))
	}
	var head State
	if err := json.Unmarshal(saved.changes[len(saved.changes)-1].Header, &head); err != nil {
		t.Fatal(err)
	}
	if head.DayStart == nil || head.DayStart.Equity.String()+"/"+head.DayStart.Peak.String() != "1000/1050" {
		t.Fatalf("the last change's header holds day mark %+v, want start 1000 and peak 1050", head.DayStart)
	}
	st, err := Restore(saved.changes[len(saved.changes)-1].Header, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := New(Config{Market: MarketConfig{Seed: 7, Symbols: DefaultSymbols()}, Now: clock.Now, State: st, Store: saved})
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

// TestMarkEquityUnsavedIsAnError: a mark the Store refuses is an error (the loss limits then
// fail closed), the change is undone and the saved mark stands, in memory and in the Store.
func TestMarkEquityUnsavedIsAnError(t *testing.T) {
	clock := livetest.NewClock(livetest.Epoch)
	var full atomic.Bool
	saved := &wholeStore{st: &State{}, full: &full}
	b := savingBroker(t, clock, saved)
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
	full.Store(false)
	if m, err := b.MarkEquity(clock.Now(), money.MustParse("1500")); err != nil || m.Peak.String() != "1500" {
		t.Fatalf("after the Store took changes again: %+v %v, want peak 1500 (the refused 2000 undone)", m, err)
	}
	if got := saved.st.DayStart; got == nil || got.Peak.String() != "1500" {
		t.Fatalf("the Store's day mark = %+v, want peak 1500", got)
	}
}
