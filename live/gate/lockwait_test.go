package gate_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/counter"
	"cockpit/live/gate"
	"cockpit/live/livetest"
)

// accountHook is the spy with a hook on the account read, the last read before the lock.
type accountHook struct {
	*spy
	onAccount func()
}

func (a accountHook) Account(ctx context.Context) (live.Account, error) {
	if a.onAccount != nil {
		a.onAccount()
	}
	return a.spy.Account(ctx)
}

// TestLockWaitDeniesBusyAfterTheWait: a lock another process holds for the whole wait is
// still DENY lock_busy (audited once); a dry run never waits for it.
func TestLockWaitDeniesBusyAfterTheWait(t *testing.T) {
	f := newFixture(t, "")
	f.gate.LockWait = 20 * time.Millisecond
	l, err := counter.TrySubmitLock(f.root, "paper")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	if d := f.buy("AAPL", "100", ""); d.Reason != live.ReasonLockBusy || d.Forwarded {
		t.Fatalf("decision %s %s forwarded=%v, want deny lock_busy", d.Verdict, d.Reason, d.Forwarded)
	}
	if n := len(f.audit.Records()); n != 1 {
		t.Errorf("audit records = %d, want 1", n)
	}
	in := live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity, NotionalUSD: amt("100")}
	if d := f.gate.Submit(context.Background(), gate.Submission{Broker: f.broker, Intent: &in, DryRun: true}); d.Verdict != live.Allow {
		t.Errorf("dry run under a held lock: %s %s, want allow", d.Verdict, d.Reason)
	}
}

// TestLockWaitTakesTurns: orders submitted at once through one gate all go, one after the
// other; none is refused because another held the lock.
func TestLockWaitTakesTurns(t *testing.T) {
	const n = 12
	f := newFixture(t, "")
	f.gate.LockWait = time.Minute // a hung test guard, not a timing assertion
	var wg sync.WaitGroup
	ds := make([]gate.Decision, n)
	for i := range n {
		wg.Go(func() { ds[i] = f.buy("AAPL", "100", "") })
	}
	wg.Wait()
	for i, d := range ds {
		if d.Outcome != live.OutcomeAccepted {
			t.Errorf("order %d: %s %s, want accepted", i, d.Verdict, d.Reason)
		}
	}
	if got := counter.ReadDailyCount(f.root, "paper", f.clock.Now()); got != n {
		t.Errorf("count %d, want %d", got, n)
	}
}

// TestLockWaitReadsAgainAfterAnotherProcess: an order that waited while another process held
// the lock is checked against the book as it is once it holds the lock, not as it was read
// before: the other process's fill takes the exposure it would have used.
func TestLockWaitReadsAgainAfterAnotherProcess(t *testing.T) {
	doc := strings.Replace(livetest.MandateDoc, `"max_total_exposure_usd": 100000`, `"max_total_exposure_usd": 5000`, 1)
	f := newFixture(t, doc)
	f.gate.LockWait = time.Minute
	l, err := counter.TrySubmitLock(f.root, "paper") // the other process
	if err != nil {
		t.Fatal(err)
	}
	// The other process fills only once the order has read its book and found the lock held
	// (waiting on the account read alone raced: an order that reached the lock after the
	// other process let go never waited, so it rightly did not read again, and the test failed).
	waiting := make(chan struct{})
	var once sync.Once
	defer gate.SetLockWaiting(func(string) { once.Do(func() { close(waiting) }) })()
	b := accountHook{spy: f.broker}
	done := make(chan gate.Decision)
	go func() {
		in := live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity, NotionalUSD: amt("3000")}
		done <- f.gate.Submit(context.Background(), gate.Submission{Broker: b, Intent: &in, Actor: live.Agent("test", "s1")})
	}()
	<-waiting // the order has read its book and waits for the lock
	qty := amt("10")
	if _, err := f.paper.PlaceOrder(context.Background(), live.OrderRequest{Symbol: "MSFT", Side: live.Buy, Type: live.Market, Quantity: qty, ClientOrderID: "other-1"}); err != nil {
		t.Fatal(err)
	}
	l.Unlock()
	d := <-done
	if d.Forwarded || d.Breach == nil || d.Breach.Limit != live.LimitTotalExposure {
		t.Fatalf("decision %s %s forwarded=%v, want the %s breach the other fill makes", d.Verdict, d.Reason, d.Forwarded, live.LimitTotalExposure)
	}
}

// TestLockWaitCancelled: a call cut off while it waits is denied cancelled, not lock_busy.
func TestLockWaitCancelled(t *testing.T) {
	f := newFixture(t, "")
	f.gate.LockWait = time.Minute
	l, err := counter.TrySubmitLock(f.root, "paper")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	b := accountHook{spy: f.broker, onAccount: cancel}
	in := live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity, NotionalUSD: amt("100")}
	if d := f.gate.Submit(ctx, gate.Submission{Broker: b, Intent: &in, Actor: live.Agent("test", "s1")}); d.Reason != live.ReasonCancelled || d.Forwarded {
		t.Fatalf("decision %s %s forwarded=%v, want deny cancelled", d.Verdict, d.Reason, d.Forwarded)
	}
}

// TestLockWaitTurnsSeeEachOther: two orders of one gate at once, each inside the exposure cap
// alone but not together: the second runs after the first forwarded, so it reads the first's
// fill and waits for a human instead of going too.
func TestLockWaitTurnsSeeEachOther(t *testing.T) {
	doc := strings.Replace(livetest.MandateDoc, `"max_total_exposure_usd": 100000`, `"max_total_exposure_usd": 5000`, 1)
	f := newFixture(t, doc)
	f.gate.LockWait = time.Minute
	var wg sync.WaitGroup
	ds := make([]gate.Decision, 2)
	for i := range ds {
		wg.Go(func() { ds[i] = f.buy("AAPL", "3000", "") })
	}
	wg.Wait()
	forwarded, breached := 0, 0
	for _, d := range ds {
		switch {
		case d.Forwarded:
			forwarded++
		case d.Breach != nil && d.Breach.Limit == live.LimitTotalExposure:
			breached++
		}
	}
	if forwarded != 1 || breached != 1 {
		t.Errorf("forwarded %d, breached %s %d; want 1 and 1 (decisions %s/%s, %s/%s)", forwarded, live.LimitTotalExposure, breached,
			ds[0].Verdict, ds[0].Reason, ds[1].Verdict, ds[1].Reason)
	}
}
