package live

import (
	"testing"

	"cockpit/live/money"
)

// BenchmarkShapeBreach is the instrument step the gate adds to every order.
func BenchmarkShapeBreach(b *testing.B) {
	m := testMandate()
	m.HardCaps.AllowedInstruments = InstrumentTypes
	qty := money.FromInt(3)
	for _, bc := range []struct {
		name string
		in   OrderIntent
	}{
		{"equity", OrderIntent{Symbol: "AAPL", Side: Buy, InstrumentType: Equity, Quantity: &qty}},
		{"crypto", OrderIntent{Symbol: "BTC/USD", Side: Buy, InstrumentType: Crypto, Quantity: &qty}},
		{"option", OrderIntent{Symbol: "AAPL250117C00150000", Side: Buy, InstrumentType: Option, Quantity: &qty}},
		{"spread", MultiLegIntent(&qty, []Leg{{Symbol: "AAPL250117C00150000", Side: Buy, Ratio: money.FromInt(1)},
			{Symbol: "AAPL250117C00160000", Side: Sell, Ratio: money.FromInt(1)}})},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if br := ShapeBreach(m, bc.in); br != nil {
					b.Fatal(br.Message())
				}
			}
		})
	}
}
