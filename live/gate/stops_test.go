package gate_test

import (
	"context"
	"strings"
	"testing"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
	"cockpit/live/livetest"
	"cockpit/live/money"
)

func (f *fixture) stop(side, sym, qty string, typ live.OrderType, p live.OrderPrices) gate.Decision {
	in := live.OrderIntent{Symbol: sym, Side: side, InstrumentType: live.Equity, Quantity: amt(qty), Type: typ,
		LimitPrice: p.Limit, StopPrice: p.Stop, TrailAmount: p.TrailAmount, TrailPercent: p.TrailPercent}
	return f.gate.Submit(context.Background(), gate.Submission{Broker: f.broker, Intent: &in, Actor: live.Agent("test", "s1")})
}

// TestCoveringStopOnAShortIsReducing: a buy stop that covers a short is above the market, so
// valued at its trigger it is worth more than the short and looks like a flip; it closes the
// short at whatever price it triggers, so the gate values it at the position's mark and it
// passes REDUCE_ONLY (DV3). One share more than the short is not reducing.
func TestCoveringStopOnAShortIsReducing(t *testing.T) {
	f := newFixture(t, "")
	ctx := context.Background()
	if d := f.stop(live.Sell, "AAPL", "10", "", live.OrderPrices{}); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("opening short: %s", d.Message())
	}
	if _, err := halt.Trip(f.root, live.ReduceOnlySentinel, live.BrokerScope("paper"), "test", "reduce only", f.clock.Now()); err != nil {
		t.Fatal(err)
	}
	q, _ := f.paper.Quote(ctx, "AAPL")
	above := q.Ask.Mul(money.MustParse("1.05")).Round(2)
	d := f.stop(live.Buy, "AAPL", "10", live.Stop, live.OrderPrices{Stop: &above})
	if d.Outcome != live.OutcomeAccepted {
		t.Fatalf("covering buy stop at %s: %s, want it accepted as reducing", above, d.Message())
	}
	if !strings.Contains(strings.Join(d.Checked, ","), "protective_stop") {
		t.Errorf("checked %v, want protective_stop", d.Checked)
	}
	if d := f.stop(live.Buy, "AAPL", "11", live.Stop, live.OrderPrices{Stop: &above}); d.Reason != live.ReasonReduceOnly {
		t.Fatalf("a buy stop larger than the short: %s, want reduce_only", d.Reason)
	}
}

// TestProtectiveStopSkipsTheExposureCaps: with the book already over max_total_exposure_usd, a
// protective sell stop on the held position passes (DV3), while a stop that adds exposure
// waits for a human; both are counted like any order.
func TestProtectiveStopSkipsTheExposureCaps(t *testing.T) {
	f := newFixture(t, "")
	if d := f.buy("AAPL", "4000", ""); d.Outcome != live.OutcomeAccepted {
		t.Fatal(d.Message())
	}
	pos, _ := f.paper.Positions(context.Background())
	held := pos[0].Qty
	tight := strings.Replace(lossMandateTail, `"max_total_exposure_usd": 100000`, `"max_total_exposure_usd": 1000`, 1)
	commit(t, f, tight)
	q, _ := f.paper.Quote(context.Background(), "AAPL")
	below := q.Bid.Mul(money.MustParse("0.95")).Round(2)
	d := f.stop(live.Sell, "AAPL", held.String(), live.Stop, live.OrderPrices{Stop: &below})
	if d.Outcome != live.OutcomeAccepted {
		t.Fatalf("protective stop over the exposure cap: %s, want accepted", d.Message())
	}
	above := q.Ask.Mul(money.MustParse("1.02")).Round(2)
	if d := f.stop(live.Buy, "AAPL", "1", live.Stop, live.OrderPrices{Stop: &above}); d.Verdict != live.PauseForReauth {
		t.Fatalf("adding buy stop over the exposure cap: %s %s, want a pause for review", d.Verdict, d.Message())
	}
	if got, want := d.Count, 2; got != want {
		t.Errorf("orders today = %d, want %d (the stop counts like any order)", got, want)
	}
}

// TestStopWithoutItsTriggerIsRefused: a typed stop whose prices do not fit its type is denied
// before anything is valued (a trigger is never guessed).
func TestStopWithoutItsTriggerIsRefused(t *testing.T) {
	f := newFixture(t, "")
	in := live.OrderIntent{Symbol: "AAPL", Side: live.Sell, InstrumentType: live.Equity, Quantity: amt("1")}
	d := f.gate.Submit(context.Background(), gate.Submission{Broker: f.broker, Intent: &in, Order: live.OrderRequest{Type: live.TrailingStop}})
	if d.Reason != live.ReasonNoIntent || f.broker.placed != 0 {
		t.Fatalf("trailing stop with no trail: %s, want intent_unparsed and nothing sent", d.Message())
	}
}

// commit commits doc for the fixture's paper broker (a new mandate the gate verifies).
func commit(t *testing.T, f *fixture, doc string) {
	t.Helper()
	livetest.Commit(t, f.root, "paper", doc, f.clock.Now())
}

// TestStopAuditNamesItsBasis: the audit says what a stop's notional was computed from — a
// protective stop at the held position's mark (position_mark), not the quote it was not
// valued at.
func TestStopAuditNamesItsBasis(t *testing.T) {
	f := newFixture(t, "")
	if d := f.buy("AAPL", "4000", ""); d.Outcome != live.OutcomeAccepted {
		t.Fatal(d.Message())
	}
	pos, _ := f.paper.Positions(context.Background())
	q, _ := f.paper.Quote(context.Background(), "AAPL")
	below := q.Bid.Mul(money.MustParse("0.95")).Round(2)
	if d := f.stop(live.Sell, "AAPL", pos[0].Qty.String(), live.Stop, live.OrderPrices{Stop: &below}); d.Outcome != live.OutcomeAccepted {
		t.Fatalf("protective stop: %s", d.Message())
	}
	detail, _ := f.lastAudit(t).Detail.(*jsonv.Object)
	if got, _ := detail.Get("notional_basis"); got != "position_mark" {
		t.Fatalf("notional_basis %v, want position_mark", got)
	}
}
