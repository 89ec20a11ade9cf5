package tui

import (
	"fmt"
	"strconv"
	"strings"

	"cockpit/live"
	"cockpit/live/money"
)

// draftFields lists the form's fields, each reading and writing one value of the typed draft.
func draftFields(d live.MandateDraft) []formField {
	c, u, ctl := &d.HardCaps, &d.Universe, &d.Controls
	return []formField{ // key, label, help, initial text, how the text is read
		ff("hard_caps.account_funding_usd", "Account funding (USD)", "the money the agent may put at risk; exposure above it on a buy breaches",
			c.AccountFundingUSD.String(), amountField("hard_caps.account_funding_usd", func(d *live.MandateDraft) *money.Amount { return &d.HardCaps.AccountFundingUSD })),
		ff("hard_caps.max_order_notional_usd", "Max order (USD)", "the largest single order; above it an order waits for a human",
			c.MaxOrderNotionalUSD.String(), amountField("hard_caps.max_order_notional_usd", func(d *live.MandateDraft) *money.Amount { return &d.HardCaps.MaxOrderNotionalUSD })),
		ff("hard_caps.max_total_exposure_usd", "Max gross exposure (USD)", "Σ|position value| after the order, longs and shorts both count",
			c.MaxTotalExposureUSD.String(), amountField("hard_caps.max_total_exposure_usd", func(d *live.MandateDraft) *money.Amount { return &d.HardCaps.MaxTotalExposureUSD })),
		ff("hard_caps.max_leverage", "Max leverage", "gross exposure ÷ funding after the order",
			c.MaxLeverage.String(), amountField("hard_caps.max_leverage", func(d *live.MandateDraft) *money.Amount { return &d.HardCaps.MaxLeverage })),
		ff("hard_caps.max_trades_per_day", "Max orders per day", "orders forwarded per UTC day, counted only on success",
			strconv.Itoa(c.MaxTradesPerDay), func(d *live.MandateDraft, v string) error {
				n, err := optInt("hard_caps.max_trades_per_day", v, true)
				if n != nil {
					d.HardCaps.MaxTradesPerDay = int(*n)
				}
				return err
			}),
		ff("hard_caps.allowed_instruments", "Instruments", "equity, etf, option, crypto, forex, cfd (comma-separated)",
			joinStrings(c.AllowedInstruments), func(d *live.MandateDraft, v string) error {
				d.HardCaps.AllowedInstruments = listOf[live.InstrumentType](v)
				return nil
			}),
		ff("universe.asset_classes", "Asset classes", "us_equity, us_etf, hk_equity, cn_equity, in_equity, crypto, forex",
			joinStrings(u.AssetClasses), func(d *live.MandateDraft, v string) error {
				d.Universe.AssetClasses = listOf[live.AssetClass](v)
				return nil
			}),
		ff("universe.exclude_symbols", "Excluded symbols", "never traded, whatever the agent says (comma-separated)",
			joinStrings(u.ExcludeSymbols), func(d *live.MandateDraft, v string) error {
				d.Universe.ExcludeSymbols = listOf[string](v)
				return nil
			}),
		ff("universe.min_market_cap_usd", "Min market cap (USD)", "empty = no floor; a floor with no data denies",
			optText(u.MinMarketCapUSD), optAmountField("universe.min_market_cap_usd", func(d *live.MandateDraft) **money.Amount { return &d.Universe.MinMarketCapUSD })),
		ff("universe.min_avg_daily_volume_usd", "Min daily volume (USD)", "empty = no floor",
			optText(u.MinAvgDailyVolumeUSD), optAmountField("universe.min_avg_daily_volume_usd", func(d *live.MandateDraft) **money.Amount { return &d.Universe.MinAvgDailyVolumeUSD })),
		ff("flatten_on_halt", "Close positions on halt", "y: a halt also closes positions; n: it cancels orders only",
			map[bool]string{true: "y", false: "n"}[d.FlattenOnHalt], func(d *live.MandateDraft, v string) error {
				switch strings.ToLower(v) {
				case "y", "yes", "true":
					d.FlattenOnHalt = true
				case "n", "no", "false", "":
					d.FlattenOnHalt = false
				default:
					return fmt.Errorf("flatten_on_halt = %q: want y or n", v)
				}
				return nil
			}),
		ff("controls.max_order_quantity", "Max order quantity", "shares or units per order; empty = off",
			optText(ctl.MaxOrderQuantity), optAmountField("controls.max_order_quantity", func(d *live.MandateDraft) **money.Amount { return &d.Controls.MaxOrderQuantity })),
		ff("controls.price_collar_bps", "Price collar (bps)", "a limit price this far from the quote is denied; empty = off",
			optText(ctl.PriceCollarBps), optAmountField("controls.price_collar_bps", func(d *live.MandateDraft) **money.Amount { return &d.Controls.PriceCollarBps })),
		ff("controls.max_quote_age_ms", "Max quote age (ms)", "an older quote is no quote (the order is denied); empty = off",
			optIntText(ctl.MaxQuoteAgeMs), optIntField("controls.max_quote_age_ms", func(d *live.MandateDraft) **int64 { return &d.Controls.MaxQuoteAgeMs })),
		ff("controls.duplicate_window_ms", "Duplicate window (ms)", "the same order again inside it is denied; empty = off",
			optIntText(ctl.DuplicateWindowMs), optIntField("controls.duplicate_window_ms", func(d *live.MandateDraft) **int64 { return &d.Controls.DuplicateWindowMs })),
		ff("controls.max_orders_per_minute", "Max orders per minute", "more is denied, never queued; empty = off",
			optIntText(ctl.MaxOrdersPerMinute), optIntField("controls.max_orders_per_minute", func(d *live.MandateDraft) **int64 { return &d.Controls.MaxOrdersPerMinute })),
		ff("controls.approval_timeout_s", "Review deadline (s)", "an unanswered review is denied after it (default 300)",
			optIntText(ctl.ApprovalTimeoutS), optIntField("controls.approval_timeout_s", func(d *live.MandateDraft) **int64 { return &d.Controls.ApprovalTimeoutS })),
		ff("days", "Valid for (days)", "1–365; after it every order is denied until a new commit", "30", nil),
	}
}

func ff(key, label, help, initial string, set func(*live.MandateDraft, string) error) formField {
	return formField{key: key, label: label, help: help, initial: initial, set: set}
}

// plainNumber reads a decimal as the strict loader wants it (no exponent, no hex, no NaN).
func plainNumber(key, v string) (money.Amount, error) {
	if _, err := strconv.ParseFloat(v, 64); err != nil || strings.ContainsAny(v, "eE_xXnN") {
		return money.Zero, fmt.Errorf("%s = %q: want a plain number", key, v)
	}
	a, err := money.Parse(v)
	if err != nil {
		return money.Zero, fmt.Errorf("%s = %q: want a plain number", key, v)
	}
	return a, nil
}

func amountField(key string, at func(*live.MandateDraft) *money.Amount) func(*live.MandateDraft, string) error {
	return func(d *live.MandateDraft, v string) error {
		if v == "" {
			return fmt.Errorf("%s: required", key)
		}
		a, err := plainNumber(key, v)
		*at(d) = a
		return err
	}
}

func optAmountField(key string, at func(*live.MandateDraft) **money.Amount) func(*live.MandateDraft, string) error {
	return func(d *live.MandateDraft, v string) error {
		if v == "" {
			*at(d) = nil // no floor, or the control is off
			return nil
		}
		a, err := plainNumber(key, v)
		*at(d) = &a
		return err
	}
}

// optInt reads a whole number; empty is nil (an error when required).
func optInt(key, v string, required bool) (*int64, error) {
	if v == "" {
		if required {
			return nil, fmt.Errorf("%s: required", key)
		}
		return nil, nil
	}
	if _, err := plainNumber(key, v); err != nil {
		return nil, err
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%s = %q: want a whole number", key, v)
	}
	return &n, nil
}

func optIntField(key string, at func(*live.MandateDraft) **int64) func(*live.MandateDraft, string) error {
	return func(d *live.MandateDraft, v string) error {
		n, err := optInt(key, v, false)
		*at(d) = n
		return err
	}
}

// listOf splits comma-separated text into its non-empty items.
func listOf[T ~string](v string) []T {
	items := []T{}
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			items = append(items, T(s))
		}
	}
	return items
}

func optText(a *money.Amount) string {
	if a == nil {
		return ""
	}
	return a.String()
}

func optIntText(n *int64) string {
	if n == nil {
		return ""
	}
	return strconv.FormatInt(*n, 10)
}
