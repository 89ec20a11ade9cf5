package gate_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/livetest"
)

// lostReply is a broker that takes the order but whose reply is lost, and whose order lookup
// fails too: the gate cannot tell whether the broker holds it.
type lostReply struct {
	*spy
}

func (b *lostReply) PlaceOrder(ctx context.Context, req live.OrderRequest) (live.Order, error) {
	b.spy.PlaceOrder(ctx, req)
	return live.Order{}, &live.BrokerError{Class: live.ErrIndeterminate, Msg: "timeout after send"}
}

func (b *lostReply) OrderByClientID(context.Context, string) (live.Order, error) {
	return live.Order{}, errors.New("lookup timed out")
}

// TestUnknownOutcomeCounts (review of issue 10 item 4): at a cap of 2, an order whose outcome
// is unknown (the broker may hold it) counts until reconciliation says it was refused; before,
// a third order was ALLOWed and the broker held 3 orders against a cap of 2.
func TestUnknownOutcomeCounts(t *testing.T) {
	f := newFixture(t, strings.Replace(livetest.MandateDoc, `"max_trades_per_day": 20`, `"max_trades_per_day": 2`, 1))
	if d := f.buy("AAPL", "10", ""); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("first order: %+v", d)
	}
	in := live.OrderIntent{Symbol: "MSFT", Side: live.Buy, InstrumentType: live.Equity, NotionalUSD: amt("10")}
	d := f.gate.Submit(context.Background(), gate.Submission{Broker: &lostReply{f.broker}, Intent: &in, Actor: live.Agent("test", "s1")})
	if d.Outcome != live.OutcomeIndeterminate {
		t.Fatalf("second order: got %s %s, want indeterminate", d.Outcome, d.Reason)
	}
	f.clock.Advance(5e9)
	d = f.buy("NVDA", "10", "")
	if d.Forwarded || d.Breach == nil || d.Breach.Limit != live.LimitTradesPerDay {
		t.Fatalf("third order against a cap of 2 with one outcome unknown: got %s %s forwarded=%v, want a max_trades_per_day breach",
			d.Verdict, d.Reason, d.Forwarded)
	}
	if f.broker.placed != 2 {
		t.Errorf("broker got %d orders, want 2", f.broker.placed)
	}
}
