package gate_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/gate"
)

// noIDOrders lists one open order whose id the broker did not give on the first read, and
// nothing on later reads (it filled, or a cancel with an empty id happened to clear it).
type noIDOrders struct {
	live.Broker
	reads   int
	cancels []string
}

func (b *noIDOrders) OpenOrders(context.Context) ([]live.Order, error) {
	b.reads++
	if b.reads == 1 {
		return []live.Order{{ID: "", Symbol: "NVDA", Side: live.Buy, Status: live.StatusAccepted}}, nil
	}
	return nil, nil
}

func (b *noIDOrders) CancelOrder(_ context.Context, id string) error {
	b.cancels = append(b.cancels, id)
	return nil
}

// TestFlattenOrderWithoutID (DV16): an open order whose id cannot be read gets no cancel (the
// reference sends order_id null); it is an error of the flatten and the result is NOT FLAT,
// even when the re-read no longer lists it.
func TestFlattenOrderWithoutID(t *testing.T) {
	f := newFixture(t, "")
	b := &noIDOrders{Broker: f.broker}
	rep := f.gate.Flatten(context.Background(), b, "paper", gate.FlattenOptions{ClosePositions: true,
		Actor: live.System("watcher", ""), Settle: time.Millisecond})
	if len(b.cancels) != 0 {
		t.Errorf("cancels sent %q, want none", b.cancels)
	}
	if rep.Flat() || rep.Complete() {
		t.Errorf("flat %v complete %v, want neither", rep.Flat(), rep.Complete())
	}
	if got := rep.Summary(); !strings.HasPrefix(got, "NOT FLAT: 1 open order without a readable id, not cancelled ((no id) NVDA buy)") {
		t.Errorf("summary %q, want NOT FLAT naming the order without an id", got)
	}
	if len(rep.Errors) != 1 || rep.Errors[0].Phase != gate.PhaseCancel {
		t.Fatalf("errors %+v, want one cancel error", rep.Errors)
	}
	if rec := f.lastAudit(t); rec.Kind != live.KindFlatten || rec.Outcome != live.OutcomeError {
		t.Errorf("audit %s/%s, want flatten/error", rec.Kind, rec.Outcome)
	}
}
