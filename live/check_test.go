package live

import (
	"context"
	"errors"
	"testing"

	"cockpit/live/jsonv"
	"cockpit/live/money"
)

func amt(s string) money.Amount { return money.MustParse(s) }

func ptr(a money.Amount) *money.Amount { return &a }

// testMandate is the vectors' standard mandate: funding and exposure 5000, order cap 750,
// leverage 1, equity/etf in the US buckets, 5 orders a day, GME excluded.
func testMandate() *Mandate {
	return &Mandate{
		SchemaVersion: 1,
		HardCaps: HardCaps{
			AccountFundingUSD: amt("5000"), MaxOrderNotionalUSD: amt("750"), MaxTotalExposureUSD: amt("5000"),
			MaxLeverage: amt("1"), AllowedInstruments: []InstrumentType{Equity, ETF}, MaxTradesPerDay: 5,
		},
		Universe: Universe{AssetClasses: []AssetClass{USEquity, USETF}, ExcludeSymbols: []string{"GME"}},
	}
}

func buy(sym, notional string) OrderIntent {
	return OrderIntent{Symbol: sym, Side: Buy, NotionalUSD: ptr(amt(notional)), InstrumentType: Equity}
}

func sell(sym, notional string) OrderIntent {
	in := buy(sym, notional)
	in.Side = Sell
	return in
}

func book(rows ...Exposure) Book { return BookFromExposures(rows) }

type floorsFunc struct {
	mcap, adv *money.Amount
	err       error
}

func (f floorsFunc) MarketCapUSD(context.Context, string, AssetClass) (*money.Amount, error) {
	return f.mcap, f.err
}

func (f floorsFunc) AvgDailyVolumeUSD(context.Context, string, AssetClass) (*money.Amount, error) {
	return f.adv, f.err
}

func TestCheckMandate(t *testing.T) {
	withFloor := testMandate()
	withFloor.Universe.MinMarketCapUSD = ptr(amt("1000000000"))
	lev2 := testMandate()
	lev2.HardCaps.MaxLeverage = amt("2")
	lev2.HardCaps.MaxOrderNotionalUSD = amt("100000")
	lev2.HardCaps.MaxTotalExposureUSD = amt("100000")
	fractional := testMandate()
	fractional.HardCaps.MaxOrderNotionalUSD = amt("0.3")

	cases := []struct {
		name       string
		m          *Mandate
		intent     OrderIntent
		book       Book
		count      int
		floors     FloorProvider
		wantKind   BreachKind // "" = ALLOW
		wantLimit  string
		wantVerdct Verdict
	}{
		{"allow", testMandate(), buy("AAPL", "100"), book(), 0, nil, "", "", Allow},
		{"cap is inclusive", testMandate(), buy("AAPL", "750"), book(), 0, nil, "", "", Allow},
		{"over order cap", testMandate(), buy("AAPL", "750.01"), book(), 0, nil, KindQuantitative, LimitOrderNotional, PauseForReauth},
		{"exact decimals: 3×0.1 is not over 0.3", fractional, buy("AAPL", "0.3"), book(), 0, nil, "", "", Allow},
		{"excluded, case-folded", testMandate(), buy(" gme ", "100"), book(), 0, nil, KindUniverse, LimitExcludeSymbols, Deny},
		{"side must be exact", testMandate(), OrderIntent{Symbol: "AAPL", Side: "BUY", NotionalUSD: ptr(amt("1")), InstrumentType: Equity}, book(), 0, nil, KindInstrument, LimitOrderIntent, Deny},
		{"option not allowed", testMandate(), OrderIntent{Symbol: "AAPL", Side: Buy, NotionalUSD: ptr(amt("1")), InstrumentType: Option}, book(), 0, nil, KindInstrument, LimitAllowedInstruments, Deny},
		{"hk not permitted", testMandate(), OrderIntent{Symbol: "700.HK", Side: Buy, NotionalUSD: ptr(amt("1")), InstrumentType: Equity, AssetClass: HKEquity}, book(), 0, nil, KindUniverse, LimitAssetClasses, Deny},
		{"no notional", testMandate(), OrderIntent{Symbol: "AAPL", Side: Buy, InstrumentType: Equity}, book(), 0, nil, KindInstrument, LimitOrderIntent, Deny},
		{"invalid intent (DV9)", testMandate(), OrderIntent{Symbol: "AAPL", Side: Buy, NotionalUSD: ptr(amt("1")), InstrumentType: Equity, Invalid: ErrNonFinite}, book(), 0, nil, KindInstrument, LimitOrderIntent, Deny},
		{"unreadable book is data, denied (DV4)", testMandate(), buy("AAPL", "100"), UnreadableBook(errors.New("timeout")), 0, nil, KindData, LimitTotalExposure, Deny},
		{"exposure over", testMandate(), buy("AAPL", "100"), book(Exposure{"MSFT", amt("4950")}), 0, nil, KindQuantitative, LimitTotalExposure, PauseForReauth},
		{"gross, not net", testMandate(), buy("AAPL", "100"), book(Exposure{"MSFT", amt("2500")}, Exposure{"TSLA", amt("-2450")}), 0, nil, KindQuantitative, LimitTotalExposure, PauseForReauth},
		{"reducing sell skips exposure caps (DV3)", testMandate(), sell("AAPL", "500"), book(Exposure{"AAPL", amt("6000")}), 0, nil, "", "", Allow},
		{"short-covering buy skips funding (DV3)", lev2, buy("AAPL", "500"), book(Exposure{"AAPL", amt("-6000")}), 0, nil, "", "", Allow},
		{"flipping sell is not reducing", testMandate(), sell("AAPL", "750"), book(Exposure{"AAPL", amt("100")}, Exposure{"MSFT", amt("4900")}), 0, nil, KindQuantitative, LimitTotalExposure, PauseForReauth},
		{"reducing order still counts", testMandate(), sell("AAPL", "100"), book(Exposure{"AAPL", amt("6000")}), 5, nil, KindQuantitative, LimitTradesPerDay, PauseForReauth},
		{"leverage 2 buys still bound by funding", lev2, buy("AAPL", "500"), book(Exposure{"MSFT", amt("5000")}), 0, nil, KindQuantitative, LimitFunding, PauseForReauth},
		{"daily count at cap", testMandate(), buy("AAPL", "100"), book(), 5, nil, KindQuantitative, LimitTradesPerDay, PauseForReauth},
		{"negative count denied (DV9)", testMandate(), buy("AAPL", "100"), book(), -3, nil, KindData, LimitTradesPerDay, Deny},
		{"floor, no provider", withFloor, buy("AAPL", "100"), book(), 0, nil, KindUniverse, LimitMarketCap, Deny},
		{"floor, provider down", withFloor, buy("AAPL", "100"), book(), 0, floorsFunc{err: ErrProviderDown}, KindUniverse, LimitMarketCap, Deny},
		{"floor, figure missing", withFloor, buy("AAPL", "100"), book(), 0, floorsFunc{}, KindUniverse, LimitMarketCap, Deny},
		{"floor met", withFloor, buy("AAPL", "100"), book(), 0, floorsFunc{mcap: ptr(amt("1000000000"))}, "", "", Allow},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := CheckMandate(context.Background(), CheckRequest{Mandate: c.m, Intent: c.intent, Book: c.book, DailyCount: c.count, Floors: c.floors})
			if c.wantKind == "" {
				if b != nil {
					t.Fatalf("got %s/%s (%s), want ALLOW", b.Kind, b.Limit, b.Message())
				}
				return
			}
			if b == nil {
				t.Fatalf("got ALLOW, want %s/%s", c.wantKind, c.wantLimit)
			}
			if b.Kind != c.wantKind || b.Limit != c.wantLimit || b.Verdict() != c.wantVerdct {
				t.Fatalf("got %s/%s %s, want %s/%s %s", b.Kind, b.Limit, b.Verdict(), c.wantKind, c.wantLimit, c.wantVerdct)
			}
		})
	}
}

func TestCheckMandateFundingZeroIsInfiniteLeverage(t *testing.T) {
	m := testMandate()
	m.HardCaps.AccountFundingUSD = money.Zero
	b := CheckMandate(context.Background(), CheckRequest{Mandate: m, Intent: buy("AAPL", "100")})
	if b == nil || b.Limit != LimitLeverage || !b.Attempted.IsInf() || !b.Overage().IsInf() {
		t.Fatalf("got %+v, want max_leverage with an infinite attempted value", b)
	}
	res := WhatIfResult{Verdict: b.Verdict(), Breach: b}
	attempted, _ := res.JSON().Get("attempted_value")
	if got, want := string(jsonv.MustMarshal(attempted, jsonv.Compact)), `{"$float":"inf"}`; got != want {
		t.Fatalf("attempted_value = %s, want %s", got, want)
	}
}

func BenchmarkCheckMandate(b *testing.B) {
	for _, n := range []int{10, 100} {
		rows := make([]Exposure, n)
		for i := range rows {
			rows[i] = Exposure{Symbol: "SYM" + string(rune('A'+i%26)) + string(rune('A'+i/26)), Net: amt("12.5")}
		}
		m := testMandate()
		req := CheckRequest{Mandate: m, Intent: buy("AAPL", "100"), Book: BookFromExposures(rows), DailyCount: 1}
		b.Run(map[int]string{10: "positions=10", 100: "positions=100"}[n], func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				if br := CheckMandate(ctx, req); br != nil {
					b.Fatalf("unexpected breach %s", br.Message())
				}
			}
		})
	}
}
