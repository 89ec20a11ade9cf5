package paper

import (
	"cockpit/live"
	"cockpit/live/money"
)

// CryptoSymbols are crypto pairs a paper market can add to DefaultSymbols: they trade
// around the clock in fractional quantities like any paper symbol.
func CryptoSymbols() []SymbolSpec {
	return []SymbolSpec{
		{Symbol: "BTC/USD", Start: money.MustParse("64000.50"), Vol: 0.60, SpreadBps: 2},
		{Symbol: "ETH/USD", Start: money.MustParse("3150.25"), Vol: 0.75, SpreadBps: 3},
	}
}

// unsupported is why the paper broker refuses an order shape it does not simulate: options
// (a contract's multiplier and premium are not modelled, so a position would be valued 100×
// too low), multi-leg orders and replaces. "" when the order is one it trades.
func unsupported(req live.OrderRequest) string {
	switch {
	case req.Replaces != "":
		return "the paper broker does not replace orders: cancel and place again"
	case len(req.Legs) > 0:
		return "the paper broker does not trade multi-leg orders"
	case req.Instrument == live.Option || live.SymbolMultiplier(req.Symbol).Cmp(money.FromInt(1)) != 0:
		return "the paper broker does not trade options"
	}
	return ""
}
