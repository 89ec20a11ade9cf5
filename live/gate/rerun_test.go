package gate_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"cockpit/live"
	"cockpit/live/auditsink"
	"cockpit/live/counter"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/livetest"
)

// positionsHook runs other once, right after the order's positions were read: another
// process trading in the gap between an order's reads and its lock.
type positionsHook struct {
	*spy
	once  *sync.Once
	other func()
}

func (p positionsHook) Positions(ctx context.Context) ([]live.Position, error) {
	pos, err := p.spy.Positions(ctx)
	p.once.Do(p.other)
	return pos, err
}

// TestAnotherOrderBetweenReadsAndLockIsSeen: another process forwards an order after this
// order read its book and before it takes the lock, without this order ever waiting for the
// lock. The order is decided on the book as it is under the lock — the other fill takes the
// exposure it would have used — whether the other process was a cockpit gate (journal and
// counter file), the reference (counter file only) or a cockpit whose counter write failed
// (journal only). It failed before: the order was forwarded on the book it had read.
func TestAnotherOrderBetweenReadsAndLockIsSeen(t *testing.T) {
	doc := strings.Replace(livetest.MandateDoc, `"max_total_exposure_usd": 100000`, `"max_total_exposure_usd": 5000`, 1)
	tests := []struct {
		name  string
		other func(t *testing.T, f *fixture)
	}{
		{"a cockpit gate", func(t *testing.T, f *fixture) {
			g := &gate.Gate{Root: f.root, Now: f.clock.Now, Audit: &auditsink.Memory{}, Journal: f.journal, Mandates: livetest.Ledger(f.root)}
			in := live.OrderIntent{Symbol: "MSFT", Side: live.Buy, InstrumentType: live.Equity, NotionalUSD: amt("3000")}
			if d := g.Submit(context.Background(), gate.Submission{Broker: f.broker, Intent: &in, Actor: live.Agent("other", "s2")}); !d.Forwarded {
				t.Fatalf("the other order: %s %s, want forwarded", d.Verdict, d.Reason)
			}
		}},
		{"the reference", func(t *testing.T, f *fixture) {
			f.placeMSFT(t, "ref-1")
			if err := counter.NoteDailyCount(f.root, "paper", f.clock.Now(), 1); err != nil {
				t.Fatal(err)
			}
		}},
		{"a cockpit whose counter write failed", func(t *testing.T, f *fixture) {
			req := f.placeMSFT(t, "other-1")
			ctx := context.Background()
			if err := f.journal.Begin(ctx, live.JournalEntry{ClientOrderID: "other-1", Broker: "paper", Request: req, Created: f.clock.Now()}); err != nil {
				t.Fatal(err)
			}
			if err := f.journal.Finish(ctx, "other-1", live.JournalAccepted, "o-1", "", f.clock.Now()); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, doc)
			if err := counter.NoteDailyCount(f.root, "paper", f.clock.Now(), 0); err != nil { // the file is there before and after
				t.Fatal(err)
			}
			b := positionsHook{spy: f.broker, once: &sync.Once{}, other: func() { tt.other(t, f) }}
			in := live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity, NotionalUSD: amt("3000")}
			d := f.gate.Submit(context.Background(), gate.Submission{Broker: b, Intent: &in, Actor: live.Agent("test", "s1")})
			if d.Forwarded || d.Breach == nil || d.Breach.Limit != live.LimitTotalExposure {
				t.Fatalf("decision %s %s forwarded=%v, want the %s breach the other fill makes", d.Verdict, d.Reason, d.Forwarded, live.LimitTotalExposure)
			}
			if !slices.Contains(d.Checked, "rerun_under_lock") {
				t.Errorf("steps %v, want rerun_under_lock among them", d.Checked)
			}
			if got := len(f.audit.Records()); got != 1 {
				t.Errorf("audit records of the order: got %d, want 1", got)
			}
			if _, err := counter.TrySubmitLock(f.root, "paper"); err != nil {
				t.Errorf("the submit lock after the decision: %v, want it free", err)
			}
		})
	}
}

// TestQuietLockRunsOnce: with nothing in between, an order runs its steps once.
func TestQuietLockRunsOnce(t *testing.T) {
	f := newFixture(t, "")
	d := f.buy("AAPL", "100", "")
	if !d.Forwarded || slices.Contains(d.Checked, "rerun_under_lock") {
		t.Fatalf("decision %s %s forwarded=%v steps %v, want forwarded once", d.Verdict, d.Reason, d.Forwarded, d.Checked)
	}
}

// placeMSFT places 10 MSFT on the fixture's paper account as another process would.
func (f *fixture) placeMSFT(t *testing.T, id string) live.OrderRequest {
	t.Helper()
	req := live.OrderRequest{Symbol: "MSFT", Side: live.Buy, Type: live.Market, Quantity: amt("10"), ClientOrderID: id}
	if _, err := f.paper.PlaceOrder(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	return req
}

// TestRerunDeniedBeforeTheLockLetsItGo: the other process forwards and then changes the
// mandate file; the order's second run is denied at the mandate step, before it reaches the
// lock it carried over, and that lock is released with the decision.
func TestRerunDeniedBeforeTheLockLetsItGo(t *testing.T) {
	f := newFixture(t, "")
	if err := counter.NoteDailyCount(f.root, "paper", f.clock.Now(), 0); err != nil {
		t.Fatal(err)
	}
	other := func() {
		f.placeMSFT(t, "ref-1")
		if err := counter.NoteDailyCount(f.root, "paper", f.clock.Now(), 1); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f.root.MandatePath("paper"), []byte(`{"hard_caps": {}}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	b := positionsHook{spy: f.broker, once: &sync.Once{}, other: other}
	in := live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity, NotionalUSD: amt("100")}
	d := f.gate.Submit(context.Background(), gate.Submission{Broker: b, Intent: &in, Actor: live.Agent("test", "s1")})
	if d.Forwarded || d.Denial == nil || !slices.Contains(d.Checked, "rerun_under_lock") || slices.Contains(d.Checked, "daily_order_lock") {
		t.Fatalf("decision %s %s forwarded=%v steps %v, want denied at the mandate step of the run again", d.Verdict, d.Reason, d.Forwarded, d.Checked)
	}
	l, err := counter.TrySubmitLock(f.root, "paper")
	if err != nil {
		t.Fatalf("the submit lock after the decision: %v, want it free", err)
	}
	l.Unlock()
}

// TestFlattenBetweenReadsAndLockIsSeen: under REDUCE_ONLY, an order to sell the 10 MSFT the
// account holds reduces the position on the book it read; another process's flatten closes
// those 10 between the order's reads and its lock. Its closes are reduce-only (they count
// against no day, so neither the counter file nor the journal's count moves), but they write
// the submit lock file: the order runs again on the flat book and is denied reduce_only
// instead of opening a short. It was forwarded before.
func TestFlattenBetweenReadsAndLockIsSeen(t *testing.T) {
	f := newFixture(t, "")
	if d := f.buy("MSFT", "", "10"); !d.Forwarded {
		t.Fatalf("the opening buy: %s %s", d.Verdict, d.Reason)
	}
	if _, err := halt.Trip(f.root, live.ReduceOnlySentinel, live.GlobalScope, "t", "reduce only", f.clock.Now()); err != nil {
		t.Fatal(err)
	}
	other := func() {
		g := &gate.Gate{Root: f.root, Now: f.clock.Now, Audit: &auditsink.Memory{}, Journal: f.journal, Mandates: livetest.Ledger(f.root)}
		rep := g.Flatten(context.Background(), f.broker, "paper", gate.FlattenOptions{ClosePositions: true, Actor: live.Operator("other", "o"), Why: "test"})
		if len(rep.Closes) != 1 || rep.Closes[0].Err != "" {
			t.Fatalf("the other process's flatten: %q, want its one close", rep.Summary())
		}
	}
	b := positionsHook{spy: f.broker, once: &sync.Once{}, other: other}
	in := live.OrderIntent{Symbol: "MSFT", Side: live.Sell, InstrumentType: live.Equity, Quantity: amt("10")}
	d := f.gate.Submit(context.Background(), gate.Submission{Broker: b, Intent: &in, Actor: live.Agent("test", "s1")})
	if d.Forwarded || d.Reason != live.ReasonReduceOnly {
		t.Fatalf("decision %s %s forwarded=%v steps %v, want DENY %s on the flat book", d.Verdict, d.Reason, d.Forwarded, d.Checked, live.ReasonReduceOnly)
	}
}
