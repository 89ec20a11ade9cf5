package live

import (
	"errors"
	"strings"
	"testing"
	"time"

	"cockpit/live/money"
)

func TestClassifyInstrument(t *testing.T) {
	tests := []struct {
		name, symbol string
		hint         InstrumentType
		wantType     InstrumentType
		wantSymbol   string
		wantErr      string // substring; "" = no error
	}{
		{"crypto pair by shape", "btc/usd", "", Crypto, "BTC/USD", ""},
		{"crypto pair stablecoin", "ETH/USDT", Crypto, Crypto, "ETH/USDT", ""},
		{"crypto concatenated when broker says crypto", "BTCUSD", Crypto, Crypto, "BTC/USD", ""},
		{"crypto dash form", "BTC-USDC", Crypto, Crypto, "BTC/USDC", ""},
		{"crypto quoted in BTC cannot be valued", "ETH/BTC", Crypto, "", "", "cannot be valued in USD"},
		{"crypto without a quote currency", "BTC", Crypto, "", "", "not a crypto pair"},
		{"crypto with empty base", "/USD", Crypto, "", "", `it starts with "/"`}, // malformed before it is a pair
		{"option by shape", "AAPL250117C00150000", "", Option, "AAPL250117C00150000", ""},
		{"option by hint", " spy250620p00545500 ", Option, Option, "SPY250620P00545500", ""},
		{"option hint, equity symbol", "AAPL", Option, "", "", "not an OCC option symbol"},
		{"equity as today", "AAPL", Equity, Equity, "AAPL", ""},
		{"equity by shape", "BRK.B", "", Equity, "BRK.B", ""},
		{"etf as today", "SPY", ETF, ETF, "SPY", ""},
		{"equity hint, OCC symbol", "AAPL250117C00150000", Equity, "", "", "is an OCC option symbol"},
		{"equity hint, pair", "BTC/USD", Equity, "", "", "currency pair"},
		{"forex passes", "EUR/USD", Forex, Forex, "EUR/USD", ""},
		{"a slash in a share class stays an equity", "BRK/B", Equity, Equity, "BRK/B", ""},
		{"a slash in a share class by shape", "BRK/B", "", Equity, "BRK/B", ""},
		{"a pair in a stablecoin by shape", "ETH/USDC", "", Crypto, "ETH/USDC", ""},
		{"empty symbol", "  ", "", "", "", "symbol is empty"},
		{"unknown type", "AAPL", "bond", "", "", "instrument_type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ClassifyInstrument(tt.symbol, tt.hint)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v, want nil", err)
			}
			if got.Type != tt.wantType || got.Symbol != tt.wantSymbol {
				t.Errorf("got %s %s, want %s %s", got.Type, got.Symbol, tt.wantType, tt.wantSymbol)
			}
		})
	}
}

func TestParseOCC(t *testing.T) {
	c, err := ParseOCC("AAPL250117C00150000")
	if err != nil {
		t.Fatal(err)
	}
	if c.Root != "AAPL" || c.Right != 'C' || !c.Expiry.Equal(time.Date(2025, 1, 17, 0, 0, 0, 0, time.UTC)) || c.Strike.Cmp(money.MustParse("150")) != 0 {
		t.Errorf("got %+v, want AAPL 2025-01-17 C 150", c)
	}
	c, err = ParseOCC("SPY   250620P00545500") // the 21-character OSI form
	if err != nil || c.Root != "SPY" || c.Strike.Cmp(money.MustParse("545.5")) != 0 {
		t.Errorf("padded form: got %+v, %v; want SPY 545.5", c, err)
	}
	bad := map[string]string{
		"AAPL250117C0015000":     "expiry",        // a 7-digit strike shifts every part
		"AAPL251317C00150000":    "calendar date", // month 13
		"AAPL250230C00150000":    "calendar date", // 30 February
		"AAPL250117X00150000":    "right",
		"AAPL250117C00000000":    "strike is zero",
		"AAPL25011AC00150000":    "expiry",
		"AAPL250117C0015000A":    "strike",
		"TOOLONG250117C00150000": "root",
		"1AAP250117C00150000":    "root",
		"250117C00150000":        "characters",
		"AA PL250117C00150000":   "root",
		"aapl250117c00150000":    "root", // ParseOCC wants the normalised (upper-case) form
	}
	for sym, want := range bad {
		if _, err := ParseOCC(sym); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseOCC(%q) = %v, want an error about %s", sym, err, want)
		}
	}
}

func pamt(s string) *money.Amount { a := money.MustParse(s); return &a }

func TestImpliedNotionalExact(t *testing.T) {
	tests := []struct {
		name  string
		in    OrderIntent
		price string
		want  string
	}{
		{"3 option contracts at 1.25 premium", OrderIntent{Symbol: "AAPL250117C00150000", InstrumentType: Option, Quantity: pamt("3")}, "1.25", "375"},
		{"0.0015 BTC at 64,000.50", OrderIntent{Symbol: "BTC/USD", InstrumentType: Crypto, Quantity: pamt("0.0015")}, "64000.50", "96.00075"},
		{"fractional share", OrderIntent{Symbol: "AAPL", InstrumentType: Equity, Quantity: pamt("0.333")}, "187.21", "62.34093"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ImpliedNotional(tt.in, money.MustParse(tt.price))
			if got.Cmp(money.MustParse(tt.want)) != 0 {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestPriceLegsSpread(t *testing.T) {
	legs := []Leg{
		{Symbol: "AAPL250117C00150000", Side: Buy, Ratio: money.FromInt(1)},
		{Symbol: "AAPL250117C00160000", Side: Sell, Ratio: money.FromInt(2)},
	}
	premiums := map[string]string{"AAPL250117C00150000": "4.10", "AAPL250117C00160000": "1.05"}
	var sides []string
	got, err := PriceLegs(money.FromInt(3), legs, func(sym, side string) (money.Amount, error) {
		sides = append(sides, sym+":"+side)
		return money.MustParse(premiums[sym]), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// 3×1×100×4.10 + 3×2×100×1.05 = 1230 + 630: absolute notionals add, they never net.
	if want := money.MustParse("1860"); got.Cmp(want) != 0 {
		t.Errorf("got %s, want %s", got, want)
	}
	if strings.Join(sides, ",") != "AAPL250117C00150000:buy,AAPL250117C00160000:sell" {
		t.Errorf("quotes asked %v, want each leg at its own side", sides)
	}
	_, err = PriceLegs(money.FromInt(1), legs, func(sym, _ string) (money.Amount, error) {
		if sym == "AAPL250117C00160000" {
			return money.Zero, errors.New("no quote")
		}
		return money.FromInt(1), nil
	})
	if err == nil || !strings.Contains(err.Error(), "legs[1]") {
		t.Errorf("a leg without a quote: err = %v, want one naming legs[1]", err)
	}
}

// FuzzParseOCC checks that ParseOCC never panics and that occShape never rejects a symbol
// ParseOCC accepts (equity symbols skip the parse on occShape's word).
func FuzzParseOCC(f *testing.F) {
	for _, s := range []string{"AAPL250117C00150000", "SPY   250620P00545500", "AAPL", "BTC/USD", "X991231P99999999", "AAPL250230C00150000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := ParseOCC(s); err == nil && !occShape(s) {
			t.Fatalf("ParseOCC accepts %q but occShape rejects it", s)
		}
	})
}
