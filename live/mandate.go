package live

import (
	"fmt"
	"slices"
	"time"

	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// SchemaVersion is the only mandate schema version cockpit (and Vibe-Trading) understands.
const SchemaVersion = 1

// DefaultApprovalTimeout is how long a breach waits for a human when the mandate does not say.
const DefaultApprovalTimeout = 300 * time.Second

// InstrumentType is what kind of instrument an order trades.
type InstrumentType string

// Instrument types of schema 1.
const (
	Equity InstrumentType = "equity"
	ETF    InstrumentType = "etf"
	Option InstrumentType = "option"
	Crypto InstrumentType = "crypto"
	Forex  InstrumentType = "forex"
	CFD    InstrumentType = "cfd"
)

// InstrumentTypes lists every valid instrument type in schema order.
var InstrumentTypes = []InstrumentType{Equity, ETF, Option, Crypto, Forex, CFD}

// Valid reports whether t is one of the schema's instrument types (case-sensitive).
func (t InstrumentType) Valid() bool {
	for _, v := range InstrumentTypes {
		if t == v {
			return true
		}
	}
	return false
}

// canonical returns the element of set equal to v, else v: the same bytes, held in the binary
// instead of in the document v was read from, so the check compares it without touching that
// document's memory.
func canonical[T ~string](v T, set []T) T {
	if i := slices.Index(set, v); i >= 0 {
		return set[i]
	}
	return v
}

// AssetClass is the market bucket the universe permits.
type AssetClass string

// Asset classes of schema 1.
const (
	USEquity    AssetClass = "us_equity"
	USETF       AssetClass = "us_etf"
	HKEquity    AssetClass = "hk_equity"
	CNEquity    AssetClass = "cn_equity"
	INEquity    AssetClass = "in_equity"
	CryptoClass AssetClass = "crypto"
	ForexClass  AssetClass = "forex"
)

// AssetClasses lists every valid asset class in schema order.
var AssetClasses = []AssetClass{USEquity, USETF, HKEquity, CNEquity, INEquity, CryptoClass, ForexClass}

// Valid reports whether c is one of the schema's asset classes (case-sensitive).
func (c AssetClass) Valid() bool {
	for _, v := range AssetClasses {
		if c == v {
			return true
		}
	}
	return false
}

// DefaultBucket is the asset class an instrument falls in when the intent names none;
// options and CFDs have no bucket, so the asset-class check and the floors skip them.
func DefaultBucket(t InstrumentType) AssetClass {
	switch t {
	case Equity:
		return USEquity
	case ETF:
		return USETF
	case Crypto:
		return CryptoClass
	case Forex:
		return ForexClass
	}
	return ""
}

// HardCaps are the mandate's quantitative and instrument limits.
type HardCaps struct {
	AccountFundingUSD   money.Amount
	MaxOrderNotionalUSD money.Amount
	MaxTotalExposureUSD money.Amount
	MaxLeverage         money.Amount
	AllowedInstruments  []InstrumentType
	MaxTradesPerDay     int
}

// Universe is what may be traded: asset classes, floors and an exclude list (not a whitelist).
type Universe struct {
	AssetClasses         []AssetClass
	MinMarketCapUSD      *money.Amount // nil: no floor
	MinAvgDailyVolumeUSD *money.Amount // nil: no floor
	ExcludeSymbols       []string
}

// Consent is the provenance of the user's commitment, carried verbatim.
type Consent struct {
	CreatedAt          string
	ConsentTokenSHA256 string
	Broker             string
	AccountRef         string
	ExpiresAt          string
}

// Controls are cockpit's optional pre-trade controls; Vibe-Trading ignores the object.
// A nil field means the control is off.
type Controls struct {
	MaxOrderQuantity   *money.Amount // per-order quantity cap
	PriceCollarBps     *money.Amount // limit price distance from the reference quote, in bps
	MaxQuoteAgeMs      *int64        // a quote older than this is no quote
	DuplicateWindowMs  *int64        // same symbol, side, quantity and price inside it is denied
	MaxOrdersPerMinute *int64        // order-rate throttle; excess is denied, never queued
	ApprovalTimeoutS   *int64        // how long a breach waits for review (default 300)
	// MaxDailyLossUSD halts the broker once equity is this far below the UTC day's start
	// equity (realised and unrealised P&L together; see LossLimits).
	MaxDailyLossUSD *money.Amount
	// MaxDrawdownPct halts the broker once equity is this many percent below the UTC day's
	// peak equity (see LossLimits).
	MaxDrawdownPct *money.Amount
}

// HasLossLimits reports whether a loss limit is set (max_daily_loss_usd or max_drawdown_pct).
func (c Controls) HasLossLimits() bool { return c.MaxDailyLossUSD != nil || c.MaxDrawdownPct != nil }

// ApprovalTimeout returns the review deadline for a breach (default 300 s).
func (c Controls) ApprovalTimeout() time.Duration {
	if c.ApprovalTimeoutS == nil {
		return DefaultApprovalTimeout
	}
	return time.Duration(*c.ApprovalTimeoutS) * time.Second
}

// Mandate is a user-committed contract for one broker (schema 1 plus cockpit controls).
// It is immutable once loaded and re-read from disk for every decision.
type Mandate struct {
	SchemaVersion int
	MandateID     string
	HardCaps      HardCaps
	Universe      Universe
	Consent       Consent
	FlattenOnHalt bool
	Controls      Controls
	HasControls   bool // the file carried a controls object
}

// Expiry parses the consent's expires_at with the one expiry parser (DV7).
func (m *Mandate) Expiry() (time.Time, error) { return ParseExpiry(m.Consent.ExpiresAt) }

// Expired reports whether the mandate has expired at now; an unparseable expiry is expired.
func (m *Mandate) Expired(now time.Time) bool {
	t, err := m.Expiry()
	return err != nil || !now.Before(t)
}

// Document renders the mandate as it is stored in mandate.json (reference field order, then
// cockpit's controls when present).
func (m *Mandate) Document() *jsonv.Object {
	doc := jsonv.NewObject()
	doc.Set("schema_version", jsonv.Number(fmt.Sprint(m.SchemaVersion)))
	if m.MandateID != "" {
		doc.Set("mandate_id", m.MandateID)
	}
	doc.Set("hard_caps", m.HardCaps.document())
	doc.Set("universe", m.Universe.document())
	doc.Set("flatten_on_halt", m.FlattenOnHalt)
	doc.Set("consent", jsonv.ObjectOf(
		"created_at", m.Consent.CreatedAt,
		"consent_token_sha256", m.Consent.ConsentTokenSHA256,
		"broker", m.Consent.Broker,
		"account_ref", m.Consent.AccountRef,
		"expires_at", m.Consent.ExpiresAt,
	))
	if m.HasControls {
		doc.Set("controls", m.Controls.document())
	}
	return doc
}

func (h HardCaps) document() *jsonv.Object {
	inst := make([]any, len(h.AllowedInstruments))
	for i, t := range h.AllowedInstruments {
		inst[i] = string(t)
	}
	return jsonv.ObjectOf(
		"account_funding_usd", amountNumber(h.AccountFundingUSD),
		"max_order_notional_usd", amountNumber(h.MaxOrderNotionalUSD),
		"max_total_exposure_usd", amountNumber(h.MaxTotalExposureUSD),
		"max_leverage", amountNumber(h.MaxLeverage),
		"allowed_instruments", inst,
		"max_trades_per_day", jsonv.Number(fmt.Sprint(h.MaxTradesPerDay)),
	)
}

func (u Universe) document() *jsonv.Object {
	classes := make([]any, len(u.AssetClasses))
	for i, c := range u.AssetClasses {
		classes[i] = string(c)
	}
	excl := make([]any, len(u.ExcludeSymbols))
	for i, s := range u.ExcludeSymbols {
		excl[i] = s
	}
	return jsonv.ObjectOf(
		"asset_classes", classes,
		"min_market_cap_usd", optionalNumber(u.MinMarketCapUSD),
		"min_avg_daily_volume_usd", optionalNumber(u.MinAvgDailyVolumeUSD),
		"exclude_symbols", excl,
	)
}

// Fields lists the controls that are set, as name and value, in schema order.
func (c Controls) Fields() [][2]string {
	var out [][2]string
	for _, m := range c.document().Members() {
		out = append(out, [2]string{m.Key, fmt.Sprint(m.Value)})
	}
	return out
}

func (c Controls) document() *jsonv.Object {
	o := jsonv.NewObject()
	if c.MaxOrderQuantity != nil {
		o.Set("max_order_quantity", amountNumber(*c.MaxOrderQuantity))
	}
	if c.PriceCollarBps != nil {
		o.Set("price_collar_bps", amountNumber(*c.PriceCollarBps))
	}
	for _, f := range []struct {
		name string
		v    *int64
	}{
		{"max_quote_age_ms", c.MaxQuoteAgeMs},
		{"duplicate_window_ms", c.DuplicateWindowMs},
		{"max_orders_per_minute", c.MaxOrdersPerMinute},
		{"approval_timeout_s", c.ApprovalTimeoutS},
	} {
		if f.v != nil {
			o.Set(f.name, jsonv.Number(fmt.Sprint(*f.v)))
		}
	}
	for _, f := range []struct {
		name string
		v    *money.Amount
	}{
		{"max_daily_loss_usd", c.MaxDailyLossUSD},
		{"max_drawdown_pct", c.MaxDrawdownPct},
	} {
		if f.v != nil {
			o.Set(f.name, amountNumber(*f.v))
		}
	}
	return o
}

func amountNumber(a money.Amount) jsonv.Number { return jsonv.Number(a.String()) }

func optionalNumber(a *money.Amount) any {
	if a == nil {
		return nil
	}
	return amountNumber(*a)
}
