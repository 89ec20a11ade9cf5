package live

import (
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// MandateDraft is a mandate before consent: the limits an operator edits and commits (the
// mandate form, the default paper mandate). Document and JSON serialise it; CapsFromJSON
// validates what they produce.
type MandateDraft struct {
	HardCaps      HardCaps
	Universe      Universe
	FlattenOnHalt bool
	Controls      Controls // nil fields are off; no field set writes no controls object
}

// DefaultPaperDraft is the one default paper mandate: sized for the default 100,000 paper
// account, US equities and ETFs, 40 orders a day, GME excluded, a 5,000 ms (five-second)
// quote age, a 50 bps price collar, a 2 s duplicate window, 12 orders a minute and the
// 300 s review deadline.
func DefaultPaperDraft() MandateDraft {
	i64 := func(n int64) *int64 { return &n }
	amt := func(n int64) *money.Amount { a := money.FromInt(n); return &a }
	return MandateDraft{
		HardCaps: HardCaps{
			AccountFundingUSD:   money.FromInt(100000),
			MaxOrderNotionalUSD: money.FromInt(5000),
			MaxTotalExposureUSD: money.FromInt(60000),
			MaxLeverage:         money.FromInt(1),
			AllowedInstruments:  []InstrumentType{Equity, ETF},
			MaxTradesPerDay:     40,
		},
		Universe: Universe{AssetClasses: []AssetClass{USEquity, USETF}, ExcludeSymbols: []string{"GME"}},
		Controls: Controls{MaxQuoteAgeMs: i64(5000), PriceCollarBps: amt(50), DuplicateWindowMs: i64(2000),
			MaxOrdersPerMinute: i64(12), ApprovalTimeoutS: i64(300)},
	}
}

// DraftOf is the draft of a mandate: its limits without the consent.
func DraftOf(m *Mandate) MandateDraft {
	return MandateDraft{HardCaps: m.HardCaps, Universe: m.Universe, FlattenOnHalt: m.FlattenOnHalt, Controls: m.Controls}
}

// HasControls reports whether any control is set (only then is a controls object written).
func (d MandateDraft) HasControls() bool { return d.Controls.document().Len() > 0 }

// Document renders the draft as {hard_caps, universe, flatten_on_halt[, controls]} in the
// reference field order.
func (d MandateDraft) Document() *jsonv.Object {
	doc := jsonv.ObjectOf("hard_caps", d.HardCaps.document(), "universe", d.Universe.document(),
		"flatten_on_halt", d.FlattenOnHalt)
	if d.HasControls() {
		doc.Set("controls", d.Controls.document())
	}
	return doc
}

// JSON is the draft as the compact document a commit takes.
func (d MandateDraft) JSON() ([]byte, error) { return jsonv.Marshal(d.Document(), jsonv.Compact) }
