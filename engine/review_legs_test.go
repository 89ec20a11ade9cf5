package engine

import (
	"testing"

	"cockpit/live"
	"cockpit/live/money"
)

func TestCanonicalOrderBindsLegs(t *testing.T) {
	qty := money.FromInt(3)
	legs := func(ratio int64) []live.Leg {
		return []live.Leg{{Symbol: "AAPL250117C00150000", Side: live.Buy, Ratio: money.FromInt(1)},
			{Symbol: "AAPL250117C00160000", Side: live.Sell, Ratio: money.FromInt(ratio)}}
	}
	a := live.MultiLegIntent(&qty, legs(1))
	b := live.MultiLegIntent(&qty, legs(3))
	oa, da := canonicalOrder("alpaca", a, live.OrderRequest{Quantity: &qty})
	_, db := canonicalOrder("alpaca", b, live.OrderRequest{Quantity: &qty})
	if da == db {
		t.Errorf("a 1:1 and a 1:3 spread share the digest %s", da)
	}
	if !oa.Has("legs") {
		t.Errorf("the card's order %v has no legs", oa)
	}
	_, plain := canonicalOrder("paper", live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity}, live.OrderRequest{Quantity: &qty})
	o, _ := canonicalOrder("paper", live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity}, live.OrderRequest{Quantity: &qty})
	if o.Has("legs") || plain == "" {
		t.Errorf("a single order's card gained legs: %v", o)
	}
}
