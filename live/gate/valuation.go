package gate

import (
	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// The bases of an order's notional: what the number the gate checked (and the audit's
// notional column holds) was computed from.
const (
	basisExplicit   = "explicit"      // the order's own notional (larger than, or without, a priced quantity)
	basisQuote      = "quote"         // the quantity at the fresh quote (ask for a buy, bid for a sell, or the last)
	basisLimit      = "limit"         // the quantity at a buy's limit price, above the quote
	basisMarketData = "market_data"   // the quantity at the market-data source's last price (no broker quote)
	basisSizing     = "sizing"        // the broker's own sizing of the quantity
	basisLegs       = "legs"          // each leg at its own quote
	basisTrigger    = "trigger"       // the quantity at a stop's trigger, above the quote (and limit)
	basisPosition   = "position_mark" // a protective stop's quantity at the held position's mark (DV3)
)

// valuation is how a run reached the order's notional: the basis, and for a priced quantity
// the notional at the quote and at the limit price, which a screen showing quantity × limit
// and the audit's checked notional would otherwise disagree on without saying why.
type valuation struct {
	basis     string
	atQuote   *money.Amount
	atLimit   *money.Amount
	triggered bool // a stop's trigger raised the price (atTrigger)
}

// priced records a quantity valued at price (the run's fresh quote, or the market-data price,
// raised to a buy's limit).
func (v *valuation) priced(r *run, price money.Amount) {
	in := r.intent
	v.basis = basisMarketData
	if q := r.quote; q != nil {
		if qp := q.ValuationPrice(in.Side); qp.Sign() > 0 {
			n := live.ImpliedNotional(in, qp)
			v.atQuote, v.basis = &n, basisQuote
			if price.GreaterThan(qp) {
				v.basis = basisLimit
			}
		}
	}
	if in.LimitPrice != nil {
		n := live.ImpliedNotional(in, *in.LimitPrice)
		v.atLimit = &n
	}
	if v.triggered {
		v.basis = basisTrigger
	}
}

// describe adds the valuation to an audit record's detail: notional_basis always (explicit
// when nothing priced the order), notional_at_quote and notional_at_limit when known.
func (v valuation) describe(detail *jsonv.Object) {
	basis := v.basis
	if basis == "" {
		basis = basisExplicit
	}
	detail.Set("notional_basis", basis)
	if v.atQuote != nil {
		detail.Set("notional_at_quote", jsonv.Number(v.atQuote.String()))
	}
	if v.atLimit != nil {
		detail.Set("notional_at_limit", jsonv.Number(v.atLimit.String()))
	}
}
