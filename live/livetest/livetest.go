// Package livetest holds helpers for tests of cockpit's packages: a manual clock, a runtime
// root on a temporary directory, and a committed paper mandate.
package livetest

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/auditsink"
	"cockpit/live/mandatefile"
)

// Clock is a manual clock; it only moves when told to.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// Epoch is the vectors' pinned time, 2026-06-01T15:00:00Z.
var Epoch = time.Date(2026, 6, 1, 15, 0, 0, 0, time.UTC)

// Root returns a runtime root in a fresh temporary directory.
func Root(tb testing.TB) live.Root {
	tb.Helper()
	r, err := live.NewRoot(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// MandateDoc is a paper mandate: funding and exposure 100,000, 5,000 per order, leverage 1,
// equities and ETFs in the US buckets, 20 orders a day, GME excluded.
const MandateDoc = `{"hard_caps": {"account_funding_usd": 100000, "max_order_notional_usd": 5000,
 "max_total_exposure_usd": 100000, "max_leverage": 1, "allowed_instruments": ["equity", "etf"], "max_trades_per_day": 20},
 "universe": {"asset_classes": ["us_equity", "us_etf"], "min_market_cap_usd": null, "min_avg_daily_volume_usd": null,
 "exclude_symbols": ["GME"]}}`

// Commit commits doc (MandateDoc when empty) for broker, valid for 30 days from now, and
// records the commit's hash in Ledger(root), the ledger a test's gate should use (DV13).
func Commit(tb testing.TB, root live.Root, broker, doc string, now time.Time) *live.Mandate {
	tb.Helper()
	return CommitTo(tb, Ledger(root), root, broker, doc, now)
}

// CommitTo commits doc (MandateDoc when empty) for broker, valid for 30 days from now, and
// records the commit in sink, as cockpit's own commit does (a store's audit, for a gate whose
// ledger is that store).
func CommitTo(tb testing.TB, sink live.AuditSink, root live.Root, broker, doc string, now time.Time) *live.Mandate {
	tb.Helper()
	if doc == "" {
		doc = MandateDoc
	}
	res, err := mandatefile.CommitFile(mandatefile.FileCommit{Root: root, Broker: broker, Document: []byte(doc),
		Source: "test", ConsentAck: true, Now: now, SessionID: "test"})
	if err != nil {
		tb.Fatal(err)
	}
	rec := mandatefile.CommitRecord(now, live.Operator("test", "test"), "test", "test", res)
	if err := sink.Record(context.Background(), rec); err != nil {
		tb.Fatal(err)
	}
	return res.Mandate
}

var ledgers sync.Map // root dir → *auditsink.Memory

// Ledger is the in-memory mandate ledger Commit records into for root: give it to a gate as
// Mandates (and, if convenient, as Audit).
func Ledger(root live.Root) *auditsink.Memory {
	l, _ := ledgers.LoadOrStore(root.Dir(), &auditsink.Memory{})
	return l.(*auditsink.Memory)
}

// Pinned is a mandate ledger that knows one committed hash per broker: what a test's child
// process knows when its parent committed the mandate (the parent's Ledger is in its memory).
type Pinned map[string]string

// LastMandateHash implements live.MandateLedger.
func (p Pinned) LastMandateHash(_ context.Context, broker string) (string, bool, error) {
	h, ok := p[broker]
	return h, ok, nil
}

// PinFile pins the hash of broker's mandate.json as it is on disk now; an unreadable file pins
// nothing, so the gate reads it as unverified.
func PinFile(root live.Root, broker string) Pinned {
	data, err := os.ReadFile(root.MandatePath(broker))
	if err != nil {
		return Pinned{}
	}
	return Pinned{broker: live.MandateHash(data)}
}

// WaitFor returns the first value from ch that ok accepts, failing the test after 5 s.
func WaitFor[T any](tb testing.TB, ch <-chan T, what string, ok func(T) bool) T {
	tb.Helper()
	return WaitForWithin(tb, ch, what, 5*time.Second, ok)
}

// WaitForWithin is WaitFor with its own bound (a reconnect after a server restart has its own
// back-off; the bound only keeps a broken feed from hanging the test).
func WaitForWithin[T any](tb testing.TB, ch <-chan T, what string, within time.Duration, ok func(T) bool) T {
	tb.Helper()
	deadline := time.After(within)
	for {
		select {
		case v := <-ch:
			if ok(v) {
				return v
			}
		case <-deadline:
			tb.Fatalf("no %s within %s", what, within)
		}
	}
}
