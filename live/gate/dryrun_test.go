package gate_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"cockpit/live"
	"cockpit/live/counter"
	"cockpit/live/gate"
	"cockpit/live/livetest"
)

// days is a fleet day count: n orders so far; reserve and count as asked.
type days struct {
	mu       sync.Mutex
	n        int
	reserved int
	err      error
}

func (d *days) Reserve(context.Context, string, string) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err != nil {
		return 0, d.err
	}
	d.reserved++
	d.n++
	return d.n - 1, nil
}

func (d *days) Release(context.Context, string, string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.n--
	return nil
}

// countingDays can also be read without taking a slot (live.DayCounter).
type countingDays struct{ *days }

func (d countingDays) Count(context.Context, string, string) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.n, d.err
}

func (f *fixture) dryBuy(notional string) gate.Decision {
	in := live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity, NotionalUSD: amt(notional)}
	return f.gate.Submit(context.Background(), gate.Submission{Broker: f.broker, Intent: &in, Actor: live.Agent("test", "s1"), DryRun: true})
}

// TestDryRunRunsTheGatesSteps: a dry run decides as the real run would — the fleet's count,
// the throttle, the mandate — without a lock, a slot, a journal row, a forward or a record.
func TestDryRunRunsTheGatesSteps(t *testing.T) {
	doc := strings.Replace(livetest.MandateDoc, `"max_trades_per_day": 20`, `"max_trades_per_day": 3`, 1)
	t.Run("fleet count read, no slot", func(t *testing.T) {
		f := newFixture(t, doc)
		fleet := &days{n: 3}
		f.gate.Days = countingDays{fleet}
		d := f.dryBuy("100")
		if d.Verdict != live.PauseForReauth || d.Breach == nil || d.Breach.Limit != live.LimitTradesPerDay || d.Count != 3 {
			t.Fatalf("dry run with the fleet at 3/3: %s %s count %d, want a max_trades_per_day pause at 3", d.Verdict, d.Reason, d.Count)
		}
		if fleet.reserved != 0 || fleet.n != 3 {
			t.Errorf("the dry run took %d fleet slots (count %d), want none", fleet.reserved, fleet.n)
		}
		if n := len(f.audit.Records()); n != 0 || f.broker.placed != 0 {
			t.Errorf("the dry run audited %d records and placed %d orders, want none", n, f.broker.placed)
		}
	})
	t.Run("fleet that cannot be read without a slot", func(t *testing.T) {
		f := newFixture(t, doc)
		fleet := &days{}
		f.gate.Days = fleet
		if d := f.dryBuy("100"); d.Verdict != live.Deny || d.Reason != live.ReasonFleetUnavailable || fleet.reserved != 0 {
			t.Fatalf("dry run, fleet without Count: %s %s (%d slots), want DENY %s and no slot", d.Verdict, d.Reason, fleet.reserved, live.ReasonFleetUnavailable)
		}
	})
	t.Run("fleet down", func(t *testing.T) {
		f := newFixture(t, doc)
		f.gate.Days = countingDays{&days{err: errors.New("no servers")}}
		if d := f.dryBuy("100"); d.Verdict != live.Deny || d.Reason != live.ReasonFleetUnavailable {
			t.Fatalf("dry run, fleet down: %s %s, want DENY %s", d.Verdict, d.Reason, live.ReasonFleetUnavailable)
		}
	})
	t.Run("no lock taken", func(t *testing.T) {
		f := newFixture(t, doc)
		l, err := counter.TrySubmitLock(f.root, "paper") // an order being submitted
		if err != nil {
			t.Fatal(err)
		}
		defer l.Unlock()
		if d := f.dryBuy("100"); d.Verdict != live.Allow || d.Outcome != "dry_run" || d.Intent == nil {
			t.Fatalf("dry run while the lock is held: %s %s %s, want ALLOW dry_run with the valued intent", d.Verdict, d.Reason, d.Outcome)
		}
	})
	t.Run("throttle", func(t *testing.T) {
		f := newFixture(t, strings.Replace(livetest.MandateDoc, `"exclude_symbols": ["GME"]}`, `"exclude_symbols": ["GME"]}, "controls": {"duplicate_window_ms": 60000}`, 1))
		if d := f.buy("AAPL", "100", ""); d.Outcome != live.OutcomeAccepted {
			t.Fatalf("first order: %s %s", d.Verdict, d.Reason)
		}
		if d := f.dryBuy("100"); d.Verdict != live.Deny || d.Reason != live.ReasonDuplicate {
			t.Fatalf("dry run of the same order inside the duplicate window: %s %s, want DENY %s", d.Verdict, d.Reason, live.ReasonDuplicate)
		}
	})
}
