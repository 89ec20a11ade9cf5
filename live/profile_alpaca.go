package live

import (
	"regexp"

	"cockpit/live/jsonv"
	"cockpit/live/money"
	"cockpit/live/pystr"
)

// AlpacaMCP is the profile of the official Alpaca MCP server, read from the shipped
// profiles/alpaca.toml: stock, crypto and single-leg option orders yield an intent;
// multi-leg, bracket/OCO/OTO, stop and trailing orders, replaces and cancels do not (the gate
// denies them until they are mapped).
func AlpacaMCP() *Profile { return shipped()["alpaca"] }

// Profiles are the shipped MCP profiles a config can name (profiles/*.toml).
func Profiles() map[string]*Profile { return shipped() }

// occSymbol matches an OCC option symbol: root, yymmdd, C/P, strike × 1000 in 8 digits.
var occSymbol = regexp.MustCompile(`^[A-Z]{1,6}[0-9]{6}[CP][0-9]{8}$`)

// OptionMultiplier is the shares one listed equity option contract covers.
var OptionMultiplier = money.FromInt(100)

// parseAlpacaQuote reads the reference's price keys first, then Alpaca's ask_price and
// bid_price on the payload, under "quote" or under the symbol.
func parseAlpacaQuote(payload any, symbol string) (money.Amount, bool) {
	if p, ok := ParseMCPQuote(payload, symbol); ok {
		return p, true
	}
	o, ok := payload.(*jsonv.Object)
	if !ok {
		return money.Zero, false
	}
	keys := []string{"ask_price", "bid_price"}
	if p, ok := priceFrom(o, keys); ok {
		return p, true
	}
	for _, k := range []string{"quote", pystr.Upper(pystr.Strip(symbol))} {
		if inner, ok := o.Value(k).(*jsonv.Object); ok {
			if p, ok := priceFrom(inner, append([]string{"price", "last"}, keys...)); ok {
				return p, true
			}
		}
	}
	return money.Zero, false
}
