package live

import (
	"context"
	"testing"

	"cockpit/live/jsonv"
)

// TestCanonicalEnumsKeepTheirText: interning an enum value never changes its text.
func TestCanonicalEnumsKeepTheirText(t *testing.T) {
	for _, s := range []string{"", "equity", "etf", "option", "crypto", "forex", "cfd", "us_equity", "us_etf",
		"hk_equity", "cn_equity", "in_equity", "EQUITY", "buy", "sell", "Buy", " buy", "hold", "bond"} {
		if got := string(canonical(InstrumentType(s), InstrumentTypes)); got != s {
			t.Errorf("canonical(InstrumentType(%q)) = %q", s, got)
		}
		if got := string(canonical(AssetClass(s), AssetClasses)); got != s {
			t.Errorf("canonical(AssetClass(%q)) = %q", s, got)
		}
		if got := canonical(s, sides); got != s {
			t.Errorf("canonical(%q, sides) = %q", s, got)
		}
	}
}

// TestFloorMessages pins the floors' breach messages word for word: missing, below, and a
// provider that is down (no conformance vector has a market cap below its floor).
func TestFloorMessages(t *testing.T) {
	m := testMandate()
	m.Universe.MinMarketCapUSD = ptr(amt("1000000"))
	m.Universe.MinAvgDailyVolumeUSD = ptr(amt("50000"))
	cases := []struct {
		name, sym        string
		data             *jsonv.Object
		limit, detail    string
		cause, attempted string
	}{
		{"cap missing", "AAPL", jsonv.ObjectOf("market_cap_usd", nil, "adv_usd", jsonv.Number("60000")),
			LimitMarketCap, "market cap for AAPL unavailable (fail-closed)", "", "0"},
		{"cap below", " aapl ", jsonv.ObjectOf("market_cap_usd", jsonv.Number("999999.99"), "adv_usd", jsonv.Number("60000")),
			LimitMarketCap, "AAPL market cap below floor", "", "999999.99"},
		{"cap provider down", "AAPL", jsonv.ObjectOf("market_cap_usd", "raise"),
			LimitMarketCap, "market cap for AAPL unavailable (fail-closed)", ErrProviderDown.Error(), "0"},
		{"volume missing", "AAPL", jsonv.ObjectOf("market_cap_usd", jsonv.Number("2e6"), "adv_usd", nil),
			LimitAvgDailyVolume, "liquidity for AAPL unavailable (fail-closed)", "", "0"},
		{"volume below", "msft", jsonv.ObjectOf("market_cap_usd", jsonv.Number("2e6"), "adv_usd", jsonv.Number("49999")),
			LimitAvgDailyVolume, "MSFT avg daily $ volume below floor", "", "49999"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := CheckMandate(context.Background(), CheckRequest{Mandate: m, Intent: buy(c.sym, "100"), Floors: &StaticFloors{Data: c.data}})
			if b == nil {
				t.Fatalf("got ALLOW, want a %s breach", c.limit)
			}
			if b.Limit != c.limit || b.Detail != c.detail || b.Cause != c.cause || b.Attempted.String() != c.attempted {
				t.Errorf("got limit %q, detail %q, cause %q, attempted %s; want %q, %q, %q, %s",
					b.Limit, b.Detail, b.Cause, b.Attempted, c.limit, c.detail, c.cause, c.attempted)
			}
		})
	}
}
