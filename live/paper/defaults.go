package paper

import (
	"bytes"
	_ "embed"
	"time"

	"cockpit/live/money"
)

//go:embed data/sample_bars.csv
var sampleBars []byte

// SampleBars returns the bundled sample data set (synthetic one-minute bars for five symbols).
func SampleBars() (map[string][]Bar, error) { return ReadBarsCSV(bytes.NewReader(sampleBars)) }

// DefaultSymbols is the embedded demo universe: five US symbols with plausible prices and
// volatilities, one of them on the default mandate's exclude list.
func DefaultSymbols() []SymbolSpec {
	spec := func(sym, start string, vol float64) SymbolSpec {
		return SymbolSpec{Symbol: sym, Start: money.MustParse(start), Vol: vol, SpreadBps: 4}
	}
	return []SymbolSpec{
		spec("AAPL", "191.40", 0.28),
		spec("MSFT", "418.25", 0.24),
		spec("NVDA", "121.80", 0.55),
		spec("SPY", "562.10", 0.16),
		spec("TSLA", "243.75", 0.62),
		spec("GME", "23.10", 0.95),
	}
}

// DefaultMarket is the demo market: the default symbols, one-second steps, running 30× faster
// than the clock so a few minutes of watching show real movement.
func DefaultMarket(seed int64) MarketConfig {
	return MarketConfig{Seed: seed, Symbols: DefaultSymbols(), Step: time.Second, TimeScale: 30}
}
