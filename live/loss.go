package live

import (
	"errors"
	"fmt"
	"time"

	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// Loss limit names: the controls that set them, and the limit a loss breach names.
const (
	LimitDailyLoss = "max_daily_loss_usd"
	LimitDrawdown  = "max_drawdown_pct"
)

// KindLoss is the breach kind of a crossed loss limit: always denied, never reviewed.
const KindLoss BreachKind = "loss_limit"

// Loss reason codes: a crossed limit halts the broker (loss_limit); an equity or a day's
// baseline that cannot be read denies the orders that would increase exposure (equity_unknown).
const (
	ReasonLossLimit     Reason = "loss_limit"
	ReasonEquityUnknown Reason = "equity_unknown"
)

// KindLossLimitCrossed is the audit kind of a loss limit found crossed (once per crossing; the
// HALT it trips is a halt_tripped record of its own, reason loss_limit).
const KindLossLimitCrossed = "loss_limit_crossed"

// EquityMark is a broker's equity baseline for one UTC day: the equity at the day's first
// valuation (the day P&L's and the daily loss limit's baseline) and the highest equity seen
// that day (the drawdown limit's peak).
type EquityMark struct {
	Day   string       // 2006-01-02, UTC
	Start money.Amount // the equity at the day's first valuation
	Peak  money.Amount // the highest equity seen that day, Start included
}

// ErrNoEquity refuses a non-positive equity as a baseline: it is a failed read, not a value.
var ErrNoEquity = errors.New("equity is not positive (unreadable)")

// Next is the mark after equity is seen at now: a new UTC day starts a mark at equity, the same
// day's peak rises to it. changed reports whether anything moved (what a keeper must save).
func (m EquityMark) Next(now time.Time, equity money.Amount) (next EquityMark, changed bool, err error) {
	if equity.Sign() <= 0 || equity.IsInf() {
		return m, false, fmt.Errorf("%w: %s", ErrNoEquity, equity)
	}
	day := UTCDay(now)
	if m.Day != day || m.Start.Sign() <= 0 {
		return EquityMark{Day: day, Start: equity, Peak: equity}, true, nil
	}
	peak := money.Max(m.Peak, m.Start)
	if equity.GreaterThan(peak) {
		peak = equity
	}
	next = EquityMark{Day: m.Day, Start: m.Start, Peak: peak}
	return next, !next.Peak.Equal(m.Peak), nil
}

// EquityMarker keeps a broker's day mark durably: the paper broker in its saved account, any
// other broker in a file beside its day count (live/equitymark). MarkEquity records equity as
// seen at now and returns the day's mark after it; a mark it cannot keep is an error (the
// loss limits then fail closed).
type EquityMarker interface {
	MarkEquity(now time.Time, equity money.Amount) (EquityMark, error)
}

// LossGauge is one loss limit at one equity reading: used against the limit.
type LossGauge struct {
	Limit     string       // LimitDailyLoss or LimitDrawdown
	Value     money.Amount // the limit: USD, or percent
	Used      money.Amount // the day's loss in USD, or the drawdown in percent (4 places); never negative
	HaltBelow money.Amount // the equity below which the limit is crossed
	Crossed   bool         // Used > Value (strictly, as every cap)
}

// LossLimits is a mandate's loss limits at one equity reading: what the gate decides with and
// what status, check and the screen's gauges show. Err set means the equity or the day's
// baseline could not be read: nothing is known to be crossed, and an order that would
// increase exposure is denied (fail closed).
type LossLimits struct {
	Mark   EquityMark
	Equity money.Amount
	At     time.Time
	Gauges []LossGauge // one per limit set: the daily loss first, then the drawdown
	Err    error
}

// EvaluateLoss reads c's loss limits at equity against the day's mark. The daily loss is the
// mark's start equity less equity (realised and unrealised P&L together, as the account's
// equity carries both); the drawdown is the fall from the mark's peak in percent. With no loss
// limit set it returns no gauges.
func EvaluateLoss(c Controls, mark EquityMark, equity money.Amount, at time.Time) LossLimits {
	l := LossLimits{Mark: mark, Equity: equity, At: at}
	if c.MaxDailyLossUSD != nil {
		loss := money.Max(mark.Start.Sub(equity), money.Zero)
		l.Gauges = append(l.Gauges, LossGauge{Limit: LimitDailyLoss, Value: *c.MaxDailyLossUSD, Used: loss,
			HaltBelow: mark.Start.Sub(*c.MaxDailyLossUSD), Crossed: loss.GreaterThan(*c.MaxDailyLossUSD)})
	}
	if c.MaxDrawdownPct != nil {
		peak := money.Max(mark.Peak, mark.Start)
		fall := money.Max(peak.Sub(equity), money.Zero)
		hundred := money.FromInt(100)
		used := money.Zero
		if peak.Sign() > 0 {
			used = fall.Mul(hundred).Div(peak).Round(4)
		}
		l.Gauges = append(l.Gauges, LossGauge{Limit: LimitDrawdown, Value: *c.MaxDrawdownPct, Used: used,
			HaltBelow: peak.Sub(peak.Mul(*c.MaxDrawdownPct).Div(hundred)),
			// exact: fall/peak × 100 > pct ⇔ fall × 100 > pct × peak (peak > 0)
			Crossed: peak.Sign() > 0 && fall.Mul(hundred).GreaterThan(c.MaxDrawdownPct.Mul(peak))})
	}
	return l
}

// LossUnknown is c's loss limits when the equity or the day's baseline could not be read:
// the gauges name the limits, none is known to be crossed, and Err says why.
func LossUnknown(c Controls, at time.Time, err error) LossLimits {
	l := EvaluateLoss(c, EquityMark{}, money.Zero, at)
	for i := range l.Gauges {
		l.Gauges[i].Used, l.Gauges[i].HaltBelow, l.Gauges[i].Crossed = money.Zero, money.Zero, false
	}
	l.Mark, l.Err = EquityMark{}, err
	return l
}

// Crossed returns the first crossed limit (the daily loss before the drawdown), or nil.
func (l LossLimits) Crossed() *LossGauge {
	if l.Err != nil {
		return nil
	}
	for i := range l.Gauges {
		if l.Gauges[i].Crossed {
			g := l.Gauges[i]
			return &g
		}
	}
	return nil
}

// Describe is one line about a gauge: "daily loss 520 USD > limit 500 (equity 99480, day
// start 100000)".
func (g LossGauge) Describe(l LossLimits) string {
	cmp := "≤"
	if g.Crossed {
		cmp = ">"
	}
	if g.Limit == LimitDrawdown {
		return fmt.Sprintf("drawdown %s%% %s limit %s%% (equity %s, day peak %s; crossed below %s)",
			g.Used, cmp, g.Value, l.Equity, money.Max(l.Mark.Peak, l.Mark.Start), g.HaltBelow.Round(2))
	}
	return fmt.Sprintf("daily loss %s USD %s limit %s (equity %s, day start %s; crossed below %s)",
		g.Used, cmp, g.Value, l.Equity, l.Mark.Start, g.HaltBelow.Round(2))
}

// Denial is the gate's refusal for an order under these limits, or nil: a crossed limit
// denies every order (loss_limit; the gate halts the broker), an unreadable equity denies an
// order that would increase exposure (equity_unknown). increases says whether the order would.
func (l LossLimits) Denial(increases bool) *Denial {
	if l.Err != nil {
		if !increases || len(l.Gauges) == 0 {
			return nil
		}
		return NewDenial(ReasonEquityUnknown, "limit", l.Gauges[0].Limit, "error", l.Err.Error())
	}
	g := l.Crossed()
	if g == nil {
		return nil
	}
	return NewDenial(ReasonLossLimit, "limit", g.Limit, "used", g.Used.String(), "limit_value", g.Value.String(),
		"equity", l.Equity.String(), "day", l.Mark.Day)
}

// Breach presents the limits' refusal as a what-if breach (kind loss_limit with the limit,
// its value and what is used; kind data when the equity is unknown), or nil.
func (l LossLimits) Breach(increases bool) *Breach {
	if l.Err != nil {
		if !increases || len(l.Gauges) == 0 {
			return nil
		}
		g := l.Gauges[0]
		return &Breach{Kind: KindData, Limit: g.Limit, LimitValue: g.Value,
			Detail: "the account equity or the day's baseline could not be read (fail-closed for orders that add exposure)", Cause: l.Err.Error()}
	}
	g := l.Crossed()
	if g == nil {
		return nil
	}
	return &Breach{Kind: KindLoss, Limit: g.Limit, LimitValue: g.Value, Attempted: g.Used,
		Detail: "loss limit crossed: " + g.Describe(l) + "; the broker is halted until an operator resumes"}
}

// JSON renders the limits for status, check and the what-if: the day's mark, the equity, one
// object per limit (limit, limit_value, used, halt_below_equity, crossed) and the error.
func (l LossLimits) JSON() *jsonv.Object {
	limits := make([]any, len(l.Gauges))
	for i, g := range l.Gauges {
		o := jsonv.ObjectOf("limit", g.Limit, "limit_value", EncodeAmount(g.Value))
		if l.Err == nil {
			o.Set("used", EncodeAmount(g.Used))
			o.Set("halt_below_equity", EncodeAmount(g.HaltBelow.Round(2)))
			o.Set("crossed", g.Crossed)
		}
		limits[i] = o
	}
	o := jsonv.ObjectOf("limits", limits)
	if l.Err != nil {
		o.Set("error", l.Err.Error())
		return o
	}
	o.Set("day", l.Mark.Day)
	o.Set("day_start_equity", EncodeAmount(l.Mark.Start))
	o.Set("day_peak_equity", EncodeAmount(money.Max(l.Mark.Peak, l.Mark.Start)))
	o.Set("equity", EncodeAmount(l.Equity))
	if !l.At.IsZero() {
		o.Set("at", FormatTimestamp(l.At))
	}
	return o
}
