package readmodel_test

import (
	"math"
	"testing"

	"cockpit/live"
	"cockpit/live/money"
	"cockpit/readmodel"
)

// TestUsage: the headroom ratios the metrics serve come from the snapshot's own book (the
// screen's gross and largest resting order), its count and the gate's loss reading; a level
// that was not read is left out, never reported as 0.
func TestUsage(t *testing.T) {
	m := &live.Mandate{HardCaps: live.HardCaps{AccountFundingUSD: money.FromInt(10000), MaxOrderNotionalUSD: money.FromInt(1000),
		MaxTotalExposureUSD: money.FromInt(5000), MaxLeverage: money.FromInt(2), MaxTradesPerDay: 10}}
	limit := money.FromInt(500)
	qty := money.FromInt(2)
	book := readmodel.Snapshot{Mandate: m, OrdersToday: 4}
	book.Positions = []live.Position{{Symbol: "AAPL", MarketValue: money.FromInt(2000)}}
	book.Orders = []live.Order{{Symbol: "MSFT", Side: live.Buy, Status: live.StatusAccepted, Quantity: &qty, LimitPrice: &limit}}
	book.Quotes = map[string]live.Quote{"MSFT": {Symbol: "MSFT", Bid: limit, Ask: limit, Last: limit}}
	book.Loss = []live.LossGauge{{Limit: live.LimitDailyLoss, Value: money.FromInt(100), Used: money.FromInt(25)}}
	cases := []struct {
		name string
		snap readmodel.Snapshot
		want map[string]float64
	}{
		{"book read", book, map[string]float64{
			live.LimitTradesPerDay: 0.4, live.LimitOrderNotional: 1, live.LimitTotalExposure: 0.6,
			live.LimitLeverage: 0.15, live.LimitFunding: 0.3, live.LimitDailyLoss: 0.25}},
		{"book unread, equity unread", readmodel.Snapshot{Mandate: m, OrdersToday: 4, Owned: readmodel.Owned{BrokerErr: "timeout", LossErr: "no equity",
			Loss: book.Loss}}, map[string]float64{live.LimitTradesPerDay: 0.4}},
		{"no mandate", readmodel.Snapshot{OrdersToday: 4}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.snap.Usage()
			if len(got) != len(c.want) {
				t.Fatalf("Usage() = %v, want %v", got, c.want)
			}
			for k, w := range c.want {
				if g, ok := got[k]; !ok || math.Abs(g-w) > 1e-9 {
					t.Errorf("Usage()[%s] = %v (present %v), want %v", k, g, ok, w)
				}
			}
		})
	}
	zero := readmodel.Snapshot{Mandate: &live.Mandate{}, OrdersToday: 1}
	if got := zero.Usage()[live.LimitTradesPerDay]; !math.IsInf(got, 1) {
		t.Errorf("a cap of 0 with one order used: %v, want +Inf", got)
	}
}
