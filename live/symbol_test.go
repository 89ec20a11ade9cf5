package live

import (
	"strings"
	"testing"

	"cockpit/live/money"
)

// TestLookAlikeSymbolsRefused is issue 27 item 4 for the gate's symbol: a symbol that reads
// like another one (an excluded one) to a person or a broker — a zero-width space, full-width
// letters, a trailing dot, a control character, any other non-ASCII letter — is refused as
// malformed, naming what is wrong; share classes, crypto pairs and OCC symbols stay valid.
func TestLookAlikeSymbolsRefused(t *testing.T) {
	refused := []struct{ sym, why string }{
		{"GME.", `it ends with "."`},
		{".GME", `it starts with "."`},
		{"GM..E", `".." has two separators in a row`},
		{"BTC//USD", `"//" has two separators in a row`},
		{"GME-", `it ends with "-"`},
		{"G\u200bME", "U+200B at byte 1"},
		{"GME\u200d", "U+200D at byte 3"},
		{"ＧＭＥ", "U+FF27 at byte 0"},
		{"ｇｍｅ", "U+FF47 at byte 0"},
		{"GМE", "U+041C at byte 1"}, // Cyrillic Em
		{"ſPY", "U+017F at byte 0"}, // long s: Python upper-cases it to S
		{"\u00a0GME", "U+00A0 at byte 0"},
		{"GME\u3000", "U+3000 at byte 3"},
		{"GME\x1b[2J", "U+001B at byte 3"},
		{"\x1b]0;OWNED\a", "U+001B at byte 0"},
		{"GME\u202e", "U+202E at byte 3"},
		{"G ME", "a space inside"},
		{"GME$", `"$" at byte 3`},
		{"GME\x7f", "U+007F at byte 3"},
		{"GME\xff", "U+FFFD at byte 3"},
	}
	for _, c := range refused {
		for _, hint := range []InstrumentType{"", Equity, Crypto, Option, ETF} {
			_, err := ClassifyInstrument(c.sym, hint)
			if err == nil || !strings.Contains(err.Error(), "is malformed") || !strings.Contains(err.Error(), c.why) {
				t.Errorf("ClassifyInstrument(%q, %q) = %v, want malformed: %s", c.sym, hint, err, c.why)
			}
		}
	}
	valid := []struct {
		sym  string
		hint InstrumentType
		want string
	}{
		{"AAPL", "", "AAPL"}, {" aapl ", "", "AAPL"}, {"\tgme\n", Equity, "GME"}, {"BRK.B", "", "BRK.B"}, {"BRK/B", "", "BRK/B"},
		{"BRK-B", Equity, "BRK-B"}, {"BTC/USD", "", "BTC/USD"}, {"BTC-USD", Crypto, "BTC/USD"}, {"btcusd", Crypto, "BTC/USD"},
		{"AAPL250117C00150000", "", "AAPL250117C00150000"}, {"AAPL  250117C00150000", Option, "AAPL  250117C00150000"},
		{"EUR_USD", "forex", "EUR_USD"}, {"7203.T", Equity, "7203.T"},
	}
	for _, c := range valid {
		i, err := ClassifyInstrument(c.sym, c.hint)
		if err != nil || i.Symbol != c.want {
			t.Errorf("ClassifyInstrument(%q, %q) = %q, %v, want %q", c.sym, c.hint, i.Symbol, err, c.want)
		}
	}
}

// TestLookAlikeLegSymbolsRefused: a leg's symbol must be well formed too (a long s upper-cases
// to an S, so "ſPY…" would read as a valid SPY contract).
func TestLookAlikeLegSymbolsRefused(t *testing.T) {
	one := money.MustParse("1")
	legs := []Leg{{Symbol: "ſPY250117C00150000", Side: Buy, Ratio: one}, {Symbol: "SPY250117C00160000", Side: Sell, Ratio: one}}
	if err := ValidateLegs(legs); err == nil || !strings.Contains(err.Error(), "legs[0].symbol") || !strings.Contains(err.Error(), "U+017F") {
		t.Errorf("ValidateLegs = %v, want legs[0].symbol malformed (U+017F)", err)
	}
	legs[0].Symbol = "SPY250117C00150000"
	if err := ValidateLegs(legs); err != nil {
		t.Errorf("ValidateLegs of a well-formed spread = %v", err)
	}
}

// BenchmarkSymbolError is the symbol check every order's ClassifyInstrument now runs.
func BenchmarkSymbolError(b *testing.B) {
	for _, s := range []string{"AAPL", "BTC/USD", "AAPL250117C00150000"} {
		b.Run(strings.ReplaceAll(s, "/", "_"), func(b *testing.B) {
			for b.Loop() {
				if err := symbolError(s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
