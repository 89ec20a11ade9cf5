package live

import (
	"context"
	"fmt"
	"slices"

	"cockpit/live/money"
	"cockpit/live/pystr"
)

// Verdict is the gate's answer for one order.
type Verdict string

// Verdicts.
const (
	Allow          Verdict = "ALLOW"
	Deny           Verdict = "DENY"
	PauseForReauth Verdict = "PAUSE_FOR_REAUTH"
)

// BreachKind classifies a breach: structural kinds are denied, quantitative ones wait for a
// human, data means the gate could not see what it needs (DV4: denied, never approvable).
type BreachKind string

// Breach kinds.
const (
	KindUniverse     BreachKind = "universe"
	KindInstrument   BreachKind = "instrument"
	KindQuantitative BreachKind = "quantitative"
	KindData         BreachKind = "data"
)

// Limit names, as the reference reports them.
const (
	LimitOrderIntent        = "order_intent"
	LimitExcludeSymbols     = "exclude_symbols"
	LimitAllowedInstruments = "allowed_instruments"
	LimitAssetClasses       = "asset_classes"
	LimitOrderNotional      = "max_order_notional_usd"
	LimitTotalExposure      = "max_total_exposure_usd"
	LimitLeverage           = "max_leverage"
	LimitTradesPerDay       = "max_trades_per_day"
	LimitFunding            = "account_funding_usd"
	LimitMarketCap          = "min_market_cap_usd"
	LimitAvgDailyVolume     = "min_avg_daily_volume_usd"
)

// Breach is the first limit an order would break.
type Breach struct {
	Kind       BreachKind
	Limit      string
	LimitValue money.Amount
	Attempted  money.Amount
	Detail     string // the reference's detail text, "" for plain cap breaches
	Cause      string // cockpit's extra explanation (why data was unusable), may be ""
}

// Overage is attempted − limit.
func (b *Breach) Overage() money.Amount { return b.Attempted.Sub(b.LimitValue) }

// Verdict maps the breach kind to the gate's verdict: quantitative breaches pause for a human;
// universe, instrument and data breaches are denied.
func (b *Breach) Verdict() Verdict {
	if b.Kind == KindQuantitative {
		return PauseForReauth
	}
	return Deny
}

// Structural reports whether the breach can never be approved through.
func (b *Breach) Structural() bool { return b.Kind != KindQuantitative }

// Message is a one-line human description of the breach.
func (b *Breach) Message() string {
	msg := b.Detail
	if msg == "" {
		msg = fmt.Sprintf("%s %s > limit %s (over by %s)", b.Limit, b.Attempted, b.LimitValue, b.Overage())
	}
	if b.Cause != "" {
		msg += ": " + b.Cause
	}
	return msg
}

// FloorProvider supplies the figures the universe floors need. A nil figure means the figure
// is unavailable; an error means the provider is down. Both deny the order.
type FloorProvider interface {
	MarketCapUSD(ctx context.Context, symbol string, class AssetClass) (*money.Amount, error)
	AvgDailyVolumeUSD(ctx context.Context, symbol string, class AssetClass) (*money.Amount, error)
}

// CheckRequest is everything CheckMandate decides on.
type CheckRequest struct {
	Mandate    *Mandate
	Intent     OrderIntent
	Book       Book
	DailyCount int           // orders already placed today (UTC), per broker
	Floors     FloorProvider // nil: no provider (a set floor then denies)
	// Waive names one quantitative limit a human approved for this exact order; its
	// comparison is skipped and every other step still runs.
	Waive string
	// Waived names further quantitative limits a human approved together (issue 10 item 7).
	Waived []string
}

// waives reports whether a human approved breaching limit for this order.
func (r *CheckRequest) waives(limit string) bool {
	return limit == r.Waive || slices.Contains(r.Waived, limit)
}

// CheckMandate is the pure decision of the reference's check_mandate: the steps run in the
// reference's order, every comparison is a strict ">", and the first failure is returned
// (nil means ALLOW). Deviations: an unusable intent or non-finite number is denied (DV9); an
// unreadable book is a data breach, denied (DV4); an order that only reduces its symbol's
// exposure without flipping it skips the exposure, leverage and funding caps (DV3); a negative
// day count is denied (DV9); arithmetic is exact (DV11).
func CheckMandate(ctx context.Context, req CheckRequest) *Breach {
	caps, uni, in := &req.Mandate.HardCaps, &req.Mandate.Universe, &req.Intent // no copies
	sym := pystr.Upper(pystr.Strip(in.Symbol))                                 // in.NormalizedSymbol(), without copying the intent
	// E0 intent
	if sym == "" || (in.Side != Buy && in.Side != Sell) {
		return structural(KindInstrument, LimitOrderIntent, "order intent missing symbol or side")
	}
	// E1 exclude list
	if slices.ContainsFunc(uni.ExcludeSymbols, func(s string) bool { return pystr.UpperStripEqual(s, sym) }) {
		return structural(KindUniverse, LimitExcludeSymbols, sym+" is on the mandate exclude list")
	}
	// E2 instrument
	if !slices.Contains(caps.AllowedInstruments, in.InstrumentType) {
		return structural(KindInstrument, LimitAllowedInstruments, string(in.InstrumentType)+" not in allowed_instruments")
	}
	// E3 asset class
	bucket := in.AssetClass // in.Bucket(), without copying the intent
	if bucket == "" {
		bucket = DefaultBucket(in.InstrumentType)
	}
	if bucket != "" && !slices.Contains(uni.AssetClasses, bucket) {
		return structural(KindUniverse, LimitAssetClasses, string(bucket)+" not in permitted asset_classes")
	}
	// E4a notional resolvable
	if in.Invalid != nil || in.NotionalUSD == nil || in.NotionalUSD.Sign() <= 0 {
		b := structural(KindInstrument, LimitOrderIntent, "order notional could not be resolved")
		if in.Invalid != nil {
			b.Cause = in.Invalid.Error()
		}
		return b
	}
	notional := *in.NotionalUSD
	// E4b per-order cap
	if notional.GreaterThan(caps.MaxOrderNotionalUSD) && !req.waives(LimitOrderNotional) {
		return quantitative(LimitOrderNotional, caps.MaxOrderNotionalUSD, notional, "")
	}
	// E5a positions readable (DV4: a data outage is denied, not approvable)
	if req.Book.Err != nil {
		return &Breach{Kind: KindData, Limit: LimitTotalExposure, LimitValue: caps.MaxTotalExposureUSD,
			Detail: "current positions could not be read (fail-closed)", Cause: req.Book.Err.Error()}
	}
	signed := notional
	if in.Side == Sell {
		signed = notional.Neg()
	}
	before := req.Book.Net(sym)
	// The post-trade gross, without copying the book: only this symbol's term changes (a
	// symbol the book does not hold adds the order's notional, which is positive).
	var gross money.Amount
	if before.Sign() == 0 {
		gross = req.Book.Gross().Add(notional)
	} else {
		gross = req.Book.Gross().Sub(before.Abs()).Add(before.Add(signed).Abs())
	}
	if !ReducesOnly(before, signed) { // DV3
		if b := exposureChecks(caps, in.Side, gross, req.waives); b != nil {
			return b
		}
	}
	// E7 trades per day
	if b := TradesPerDayBreach(*caps, req.DailyCount); b != nil && (b.Kind == KindData || !req.waives(LimitTradesPerDay)) {
		return b
	}
	// E9 universe floors, only for bucketed instruments
	if bucket != "" {
		return checkFloors(ctx, req.Floors, uni, sym, bucket)
	}
	return nil
}

// Breaches is every breach the order has, in the reference's order: the quantitative ones
// one after another (each found by waiving those before it), then the first breach that is
// not quantitative, if any. CheckMandate's answer is always the first. A review shows the
// whole list, so an approval covers what the human saw and nothing else.
func Breaches(ctx context.Context, req CheckRequest) []*Breach {
	req.Waived = slices.Clone(req.Waived)
	var out []*Breach
	for len(out) <= len(quantitativeLimits) {
		b := CheckMandate(ctx, req)
		if b == nil {
			break
		}
		out = append(out, b)
		if b.Kind != KindQuantitative || req.waives(b.Limit) {
			break
		}
		req.Waived = append(req.Waived, b.Limit)
	}
	return out
}

// quantitativeLimits are the limits a human may approve.
var quantitativeLimits = []string{LimitOrderNotional, LimitTotalExposure, LimitLeverage, LimitFunding, LimitTradesPerDay}

// TradesPerDayBreach is rule E7 alone: one more order on top of today's count against the
// mandate's max_trades_per_day (a count that could not be read is a data breach). A replace
// that only lowers an order still adds one to the day, so it is checked with this.
func TradesPerDayBreach(caps HardCaps, count int) *Breach {
	if count < 0 {
		return &Breach{Kind: KindData, Limit: LimitTradesPerDay, LimitValue: money.FromInt(int64(caps.MaxTradesPerDay)),
			Detail: "today's order count could not be read (fail-closed)", Cause: fmt.Sprintf("count %d is negative", count)}
	}
	if count+1 > caps.MaxTradesPerDay {
		return quantitative(LimitTradesPerDay, money.FromInt(int64(caps.MaxTradesPerDay)), money.FromInt(int64(count)+1), "")
	}
	return nil
}

// ReducesOnly reports whether adding signed to a symbol's net exposure before shrinks its
// absolute size without flipping its side (DV3).
func ReducesOnly(before, signed money.Amount) bool {
	if before.Sign() == 0 || before.Sign() == signed.Sign() {
		return false
	}
	return signed.Abs().Cmp(before.Abs()) <= 0
}

// exposureChecks runs E5b, E6 and E8 on the post-trade gross exposure, skipping the
// comparisons a human waived.
func exposureChecks(caps *HardCaps, side string, gross money.Amount, waives func(string) bool) *Breach {
	if gross.GreaterThan(caps.MaxTotalExposureUSD) && !waives(LimitTotalExposure) {
		return quantitative(LimitTotalExposure, caps.MaxTotalExposureUSD, gross, "")
	}
	funding := caps.AccountFundingUSD
	if funding.Sign() <= 0 {
		if waives(LimitLeverage) {
			return nil
		}
		return quantitative(LimitLeverage, caps.MaxLeverage, money.Inf(1), "account_funding_usd is non-positive (fail-closed)")
	}
	// gross/funding > max_leverage, decided exactly as gross > max_leverage × funding.
	if gross.GreaterThan(caps.MaxLeverage.Mul(funding)) && !waives(LimitLeverage) {
		return quantitative(LimitLeverage, caps.MaxLeverage, gross.Div(funding), "")
	}
	if side == Buy && gross.GreaterThan(funding) && !waives(LimitFunding) {
		return quantitative(LimitFunding, funding, gross, "post-trade exposure exceeds mirrored funding ceiling")
	}
	return nil
}

func checkFloors(ctx context.Context, p FloorProvider, uni *Universe, sym string, bucket AssetClass) *Breach {
	type floor struct {
		limit    string
		value    *money.Amount
		mcap     bool   // the market cap floor, else the volume floor
		figure   string // what is missing: "market cap for " + sym + " unavailable (fail-closed)"
		tooSmall string // after the symbol when below the floor
	}
	for _, f := range [...]floor{
		{LimitMarketCap, uni.MinMarketCapUSD, true, "market cap for ", " market cap below floor"},
		{LimitAvgDailyVolume, uni.MinAvgDailyVolumeUSD, false, "liquidity for ", " avg daily $ volume below floor"},
	} {
		if f.value == nil {
			continue
		}
		var figure *money.Amount
		var cause string
		var err error
		switch { // methods called directly: method values would allocate on every check
		case p == nil:
			cause = "no universe data provider"
		case f.mcap:
			figure, err = p.MarketCapUSD(ctx, sym, bucket)
		default:
			figure, err = p.AvgDailyVolumeUSD(ctx, sym, bucket)
		}
		if err != nil {
			figure, cause = nil, err.Error()
		}
		if figure == nil {
			b := &Breach{Kind: KindUniverse, Limit: f.limit, LimitValue: *f.value, Detail: f.figure + sym + " unavailable (fail-closed)", Cause: cause}
			return b
		}
		if figure.LessThan(*f.value) {
			return &Breach{Kind: KindUniverse, Limit: f.limit, LimitValue: *f.value, Attempted: *figure, Detail: sym + f.tooSmall}
		}
	}
	return nil
}

func structural(kind BreachKind, limit, detail string) *Breach {
	return &Breach{Kind: kind, Limit: limit, Detail: detail}
}

func quantitative(limit string, limitValue, attempted money.Amount, detail string) *Breach {
	return &Breach{Kind: KindQuantitative, Limit: limit, LimitValue: limitValue, Attempted: attempted, Detail: detail}
}
