package live

import (
	"context"
	"fmt"
	"time"
)

// FillRecorder writes the fills a broker's order updates report into the audit trail, each
// once: every adapter (paper, Alpaca, the tool-shaped MCP brokers) delivers its fills as
// OrderUpdates through Broker.Subscribe, and this is the one place that records them.
type FillRecorder struct {
	Broker  string
	Audit   AuditSink
	Ledger  FillLedger // what the trail holds already (the store)
	Session string
	Now     func() time.Time
	// OnFail is told when a fill could not be recorded (the ledger or the audit failed): no
	// record, no trade (DV15), so the caller halts.
	OnFail func(error)
}

// Observe records the fill u adds, if any; it returns the fill and whether it was new.
func (r *FillRecorder) Observe(ctx context.Context, u OrderUpdate) (Fill, bool, error) {
	if u.FillQty.Sign() <= 0 && u.Order.FilledQty.Sign() <= 0 {
		return Fill{}, false, nil
	}
	ctx = context.WithoutCancel(ctx) // a fill seen is recorded, even as the session ends
	var rec FillProgress
	if key := FillOrderKey(u.Order.ID, u.Order.ClientOrderID); key != "" {
		var err error
		if rec, err = r.Ledger.FillProgress(ctx, r.Broker, key); err != nil {
			return Fill{}, false, r.fail(fmt.Errorf("read the recorded fills of order %s at %s: %w", key, r.Broker, err))
		}
	}
	f, ok := NextFill(r.Broker, u, rec)
	if !ok {
		return Fill{}, false, nil
	}
	if f.Time.IsZero() {
		f.Time = r.now()
	}
	if err := r.Audit.Record(ctx, f.Record(r.Session)); err != nil {
		return f, false, r.fail(fmt.Errorf("record %s: %w", f.Summary(), err))
	}
	return f, true, nil
}

// Follow records the fills of updates until the channel is closed (what it still buffers
// included).
func (r *FillRecorder) Follow(ctx context.Context, updates <-chan OrderUpdate) {
	for u := range updates {
		_, _, _ = r.Observe(ctx, u) // a failure has been told to OnFail
	}
}

func (r *FillRecorder) fail(err error) error {
	if r.OnFail != nil {
		r.OnFail(err)
	}
	return err
}

func (r *FillRecorder) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}
