package live

import (
	"context"
	"errors"
	"strings"
	"testing"

	"cockpit/live/jsonv"
)

// FuzzParseMandate: the loader never panics, refuses with a MandateError, and whatever it
// accepts re-encodes to a document it accepts again with the same caps.
func FuzzParseMandate(f *testing.F) {
	f.Add([]byte(validMandate))
	f.Add([]byte(strings.Replace(validMandate, `750.0`, `"750"`, 1)))
	f.Add([]byte(strings.Replace(validMandate, `750.0`, `1e999999`, 1)))
	f.Add([]byte(strings.Replace(validMandate, `"schema_version": 1,`, `"schema_version": 1, "controls": {"max_order_quantity": 5},`, 1)))
	f.Add([]byte("\ufeff{}"))
	f.Add([]byte(`{"schema_version": 1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseMandate(data)
		if err != nil {
			var me *MandateError
			if !errors.As(err, &me) {
				t.Fatalf("error %v is not a MandateError", err)
			}
			return
		}
		again, err := ParseMandate(jsonv.MustMarshal(m.Document(), jsonv.Python))
		if err != nil {
			t.Fatalf("accepted mandate does not round-trip: %v", err)
		}
		if !again.HardCaps.MaxOrderNotionalUSD.Equal(m.HardCaps.MaxOrderNotionalUSD) ||
			again.HardCaps.MaxTradesPerDay != m.HardCaps.MaxTradesPerDay {
			t.Fatal("round trip changed the caps")
		}
	})
}

// FuzzParsePositions: any JSON payload parses without panicking; a readable book has only
// finite exposures.
func FuzzParsePositions(f *testing.F) {
	for _, s := range []string{
		`[]`, `{}`, `"garbage"`, `[{"symbol":"MSFT","market_value":4900.0}]`,
		`{"positions":[{"symbol":"A","quantity":-10,"price":"490.5"}],"data":"junk"}`,
		`[{"ticker":" msft ","qty":"1_000","last_price":1}]`, `[{"symbol":"X","market_value":NaN}]`,
		`{"MSFT":{"symbol":"MSFT","value":-5,"side":"short"}}`, `[{"symbol":"X","value":1e400}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := jsonv.Parse(data, jsonv.Options{NonFinite: true})
		if err != nil {
			return
		}
		b := ParsePositions(doc)
		if b.Err != nil {
			return
		}
		for _, e := range b.Exposures {
			if e.Net.IsInf() || e.Symbol == "" {
				t.Fatalf("readable book with bad exposure %+v", e)
			}
		}
		_ = b.Gross()
	})
}

// FuzzCheckMandate: a what-if whose mandate, intent or positions fail validation is never
// allowed, and nothing panics.
func FuzzCheckMandate(f *testing.F) {
	base := `{"id":"x","mandate":{"hard_caps":{"account_funding_usd":5000.0,"max_order_notional_usd":750.0,
	"max_total_exposure_usd":5000.0,"max_leverage":1.0,"allowed_instruments":["equity","etf"],"max_trades_per_day":5},
	"universe":{"asset_classes":["us_equity","us_etf"],"min_market_cap_usd":null,"min_avg_daily_volume_usd":null,
	"exclude_symbols":["GME"]}},"intent":{"symbol":"AAPL","side":"buy","notional_usd":100.0,"quantity":null,
	"instrument_type":"equity","asset_class":null},"positions":[],"daily_count":0,"universe_data":null}`
	f.Add([]byte(base))
	for _, m := range [][2]string{
		{`"notional_usd":100.0`, `"notional_usd":{"$float":"inf"}`},
		{`"notional_usd":100.0`, `"notional_usd":"1_00"`},
		{`"symbol":"AAPL"`, `"symbol":" aa pl\u00df "`},
		{`"side":"buy"`, `"side":"hold"`},
		{`"positions":[]`, `"positions":[{"symbol":"MSFT","market_value":true}]`},
		{`"max_leverage":1.0`, `"max_leverage":{"$float":"nan"}`},
		{`"daily_count":0`, `"daily_count":-3`},
		{`"min_market_cap_usd":null`, `"min_market_cap_usd":1e9`},
		{`"instrument_type":"equity"`, `"instrument_type":"bond"`},
	} {
		f.Add([]byte(strings.Replace(base, m[0], m[1], 1)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := jsonv.Parse(data, jsonv.Options{NonFinite: true})
		if err != nil {
			return
		}
		o, ok := doc.(*jsonv.Object)
		if !ok {
			return
		}
		w, err := WhatIfFromJSON(o)
		if err != nil {
			return
		}
		res := EvaluateWhatIf(context.Background(), w)
		if res.Verdict != Allow {
			return
		}
		if _, err := CapsFromJSON(w.Mandate); err != nil {
			t.Fatalf("ALLOW with an invalid mandate: %v", err)
		}
		if in := IntentFromJSON(w.Intent); in.Invalid != nil {
			t.Fatalf("ALLOW with an invalid intent: %v", in.Invalid)
		}
		if b := ParsePositions(w.Positions); b.Err != nil {
			t.Fatalf("ALLOW with unreadable positions: %v", b.Err)
		}
		if _, err := dailyCountFromJSON(w.DailyCount); err != nil {
			t.Fatalf("ALLOW with an unreadable count: %v", err)
		}
	})
}
