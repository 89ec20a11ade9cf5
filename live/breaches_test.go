package live

import (
	"context"
	"testing"

	"cockpit/live/money"
)

// TestBreachesListsEveryBreach: Breaches starts with CheckMandate's answer and goes on past
// every quantitative breach, stopping at the first structural one.
func TestBreachesListsEveryBreach(t *testing.T) {
	m := &Mandate{HardCaps: HardCaps{AccountFundingUSD: money.FromInt(100000), MaxOrderNotionalUSD: money.FromInt(5000),
		MaxTotalExposureUSD: money.FromInt(100000), MaxLeverage: money.FromInt(1), AllowedInstruments: []InstrumentType{"equity"},
		MaxTradesPerDay: 40}, Universe: Universe{AssetClasses: []AssetClass{"us_equity"}}}
	n := money.FromInt(6000)
	in := OrderIntent{Symbol: "AAPL", Side: Buy, InstrumentType: "equity", AssetClass: "us_equity", NotionalUSD: &n}
	floor := money.FromInt(1)
	tests := []struct {
		name  string
		count int
		floor *money.Amount
		want  []string
	}{
		{"one", 0, nil, []string{LimitOrderNotional}},
		{"cap and count", 40, nil, []string{LimitOrderNotional, LimitTradesPerDay}},
		{"then structural", 40, &floor, []string{LimitOrderNotional, LimitTradesPerDay, LimitMarketCap}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mm := *m
			mm.Universe.MinMarketCapUSD = tt.floor
			req := CheckRequest{Mandate: &mm, Intent: in, DailyCount: tt.count}
			got := Breaches(context.Background(), req)
			var limits []string
			for _, b := range got {
				limits = append(limits, b.Limit)
			}
			if len(limits) != len(tt.want) {
				t.Fatalf("got %v, want %v", limits, tt.want)
			}
			for i := range limits {
				if limits[i] != tt.want[i] {
					t.Fatalf("got %v, want %v", limits, tt.want)
				}
			}
			if first := CheckMandate(context.Background(), req); first.Limit != got[0].Limit {
				t.Errorf("CheckMandate = %s, Breaches starts with %s", first.Limit, got[0].Limit)
			}
		})
	}
}
