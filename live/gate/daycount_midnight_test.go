package gate_test

import (
	"context"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/counter"
	"cockpit/live/gate"
)

// slowPlace is a broker whose acceptance arrives after the clock moved by delay.
type slowPlace struct {
	*spy
	f     *fixture
	delay time.Duration
}

func (b *slowPlace) PlaceOrder(ctx context.Context, req live.OrderRequest) (live.Order, error) {
	b.f.clock.Advance(b.delay)
	return b.spy.PlaceOrder(ctx, req)
}

// TestDailyCountAcrossMidnight (review of issue 10 item 4): an order counted at 23:59:59 UTC
// whose acceptance arrives after midnight belongs to the day it was journaled on. The counter
// file must not carry the old day's count into the new day (before: the new day began at
// 6/5, so a fresh day's first order was refused as the 7th).
func TestDailyCountAcrossMidnight(t *testing.T) {
	f := capFive(t)
	day := live.UTCDay(f.clock.Now())
	for i := 0; i < 4; i++ {
		if d := f.buy("AAPL", "10", ""); d.Outcome != live.OutcomeAccepted {
			t.Fatalf("order %d: %+v", i+1, d)
		}
	}
	_, end := live.DayBounds(f.clock.Now())
	f.clock.Set(end.Add(-time.Second)) // 23:59:59 on the same UTC day
	sb := &slowPlace{spy: f.broker, f: f, delay: 2 * time.Second}
	in := live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity, NotionalUSD: amt("10")}
	if d := f.gate.Submit(context.Background(), gate.Submission{Broker: sb, Intent: &in, Actor: live.Agent("test", "s1")}); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("5th order: %+v", d)
	}
	if live.UTCDay(f.clock.Now()) == day {
		t.Fatal("the clock did not cross midnight")
	}
	if got := counter.ReadDailyCount(f.root, "paper", f.clock.Now()); got != 0 {
		t.Errorf("counter file on the new day = %d, want 0 (the 5th order belongs to %s)", got, day)
	}
	if n, den := counter.DailyCount(context.Background(), f.root, f.journal, "paper", f.clock.Now()); den != nil || n != 0 {
		t.Errorf("gate's count on the new day = %d (%v), want 0", n, den)
	}
	if d := f.buy("AAPL", "10", ""); d.Outcome != live.OutcomeAccepted || d.Count != 1 {
		t.Errorf("first order of the new day: %s %s count %d, want accepted as 1", d.Verdict, d.Reason, d.Count)
	}
	if n, den := counter.DailyCount(context.Background(), f.root, f.journal, "paper", end.Add(-time.Second)); den != nil || n != 5 {
		t.Errorf("gate's count of %s = %d (%v), want 5", day, n, den)
	}
}
