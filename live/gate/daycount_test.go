package gate_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/counter"
	"cockpit/live/livetest"
)

// capFive returns the test mandate with a daily cap of 5.
func capFive(t *testing.T) *fixture {
	t.Helper()
	return newFixture(t, strings.Replace(livetest.MandateDoc, `"max_trades_per_day": 20`, `"max_trades_per_day": 5`, 1))
}

// TestDailyCountCannotBeReset is issue 10 item 4: at a cap of 5, rewriting or deleting
// trade_counter.json after 5 orders must not buy 5 more; the journal remembers them (DV14).
func TestDailyCountCannotBeReset(t *testing.T) {
	old := func(f *fixture) string {
		return `{"date": "` + live.UTCDay(f.clock.Now().AddDate(0, 0, -1)) + `", "count": 5}`
	}
	cases := []struct {
		name   string
		tamper func(f *fixture, path string) error
	}{
		{"garbage", func(_ *fixture, p string) error { return os.WriteFile(p, []byte("\x00garbage{"), 0o644) }},
		{"negative", func(f *fixture, p string) error {
			return os.WriteFile(p, []byte(`{"date": "`+live.UTCDay(f.clock.Now())+`", "count": -5}`), 0o644)
		}},
		{"string count", func(f *fixture, p string) error {
			return os.WriteFile(p, []byte(`{"date": "`+live.UTCDay(f.clock.Now())+`", "count": "abc"}`), 0o644)
		}},
		{"old date", func(f *fixture, p string) error { return os.WriteFile(p, []byte(old(f)), 0o644) }},
		{"deleted", func(_ *fixture, p string) error { return os.Remove(p) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := capFive(t)
			for i := 0; i < 5; i++ {
				if d := f.buy("AAPL", "10", ""); d.Outcome != live.OutcomeAccepted {
					t.Fatalf("order %d: %+v", i+1, d)
				}
			}
			if err := c.tamper(f, f.root.CounterPath("paper")); err != nil {
				t.Fatal(err)
			}
			d := f.buy("AAPL", "10", "")
			if d.Forwarded || d.Breach == nil || d.Breach.Limit != live.LimitTradesPerDay {
				t.Fatalf("6th order after the counter was %s: got %s %s forwarded=%v, want a max_trades_per_day breach",
					c.name, d.Verdict, d.Reason, d.Forwarded)
			}
			if got, want := d.Count, 5; got != want {
				t.Errorf("count = %d, want %d", got, want)
			}
			if f.broker.placed != 5 {
				t.Errorf("broker got %d orders, want 5", f.broker.placed)
			}
		})
	}
}

// TestDailyCountRewritesTheFile: after the journal lifted the count, the next forward writes
// the counter file from the lifted count, so the file catches up.
func TestDailyCountRewritesTheFile(t *testing.T) {
	f := newFixture(t, "")
	for i := 0; i < 3; i++ {
		f.buy("AAPL", "10", "")
	}
	os.Remove(f.root.CounterPath("paper"))
	if d := f.buy("AAPL", "10", ""); d.Outcome != live.OutcomeAccepted || d.Count != 4 {
		t.Fatalf("got %s count %d, want accepted count 4", d.Outcome, d.Count)
	}
	if got := counter.ReadDailyCount(f.root, "paper", f.clock.Now()); got != 4 {
		t.Errorf("counter file = %d, want 4", got)
	}
}

// unreadableJournal cannot be read.
type unreadableJournal struct{ *live.MemoryJournal }

func (unreadableJournal) AcceptedOrders(context.Context, string, time.Time) (int, error) {
	return 0, errors.New("database is locked")
}

// TestDailyCountUnavailable: with neither the counter file nor the journal readable the order
// is denied count_unavailable; with the file readable, the file's count decides.
func TestDailyCountUnavailable(t *testing.T) {
	f := capFive(t)
	f.gate.Journal = unreadableJournal{f.journal}
	if err := os.WriteFile(f.root.CounterPath("paper"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := f.buy("AAPL", "10", "")
	if d.Verdict != live.Deny || d.Reason != live.ReasonCountUnavailable || d.Forwarded {
		t.Fatalf("got %s %s forwarded=%v, want DENY count_unavailable", d.Verdict, d.Reason, d.Forwarded)
	}
	if rec := f.lastAudit(t); rec.Reason != live.ReasonCountUnavailable {
		t.Errorf("audit reason %q, want count_unavailable", rec.Reason)
	}
	os.WriteFile(f.root.CounterPath("paper"), []byte(`{"date": "`+live.UTCDay(f.clock.Now())+`", "count": 5}`), 0o644)
	if d := f.buy("AAPL", "10", ""); d.Breach == nil || d.Breach.Limit != live.LimitTradesPerDay {
		t.Fatalf("got %s %s, want the file's count 5 to breach the cap", d.Verdict, d.Reason)
	}
}

// TestDailyCountIgnoresOperatorOrders: the operator's reduce-only orders are journaled but
// never count against the agent's day.
func TestDailyCountIgnoresOperatorOrders(t *testing.T) {
	j := &live.MemoryJournal{}
	now := livetest.Epoch
	ctx := context.Background()
	add := func(id string, reduce bool, state live.JournalState, at time.Time) {
		j.Begin(ctx, live.JournalEntry{ClientOrderID: id, Broker: "paper", Request: live.OrderRequest{ReduceOnly: reduce}, Created: at})
		j.Finish(ctx, id, state, "o-"+id, "", at)
	}
	add("a", false, live.JournalAccepted, now)
	add("b", true, live.JournalAccepted, now)
	add("c", false, live.JournalRejected, now)
	add("d", false, live.JournalAccepted, now.AddDate(0, 0, -1))
	if n, err := j.AcceptedOrders(ctx, "paper", now); err != nil || n != 1 {
		t.Fatalf("AcceptedOrders = %d, %v; want 1", n, err)
	}
}

// TestSubmitLockHeldOnTheNamedFile: deleting the lock file while it is held must not let a
// second locker in (issue 10 item 4).
func TestSubmitLockHeldOnTheNamedFile(t *testing.T) {
	root := livetest.Root(t)
	livetest.Commit(t, root, "paper", livetest.MandateDoc, time.Now())
	l, err := counter.TrySubmitLock(root, "paper")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	if err := os.Remove(root.LockPath("paper")); err != nil {
		t.Fatal(err)
	}
	l2, err := counter.TrySubmitLock(root, "paper")
	if err == nil {
		l2.Unlock()
		t.Fatal("a second lock was taken after the lock file was deleted; want ErrLockBusy")
	}
	if !errors.Is(err, counter.ErrLockBusy) {
		t.Fatalf("err = %v, want ErrLockBusy", err)
	}
	l.Unlock()
	l3, err := counter.TrySubmitLock(root, "paper")
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	defer l3.Unlock()
	if _, err := os.Stat(root.LockPath("paper")); err != nil {
		t.Errorf("the lock file was not recreated: %v", err)
	}
}
