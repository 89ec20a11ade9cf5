package gate

import (
	"context"
	"time"

	"cockpit/live"
	"cockpit/live/money"
)

// valueLegs prices a multi-leg order leg by leg, each at its own fresh broker quote (a quote
// older than max_quote_age_ms is no quote); a leg without a price denies no_quote.
func (r *run) valueLegs(ctx context.Context) (money.Amount, *live.Denial) {
	in := r.intent
	n, err := live.PriceLegs(*in.Quantity, in.Legs, func(sym, side string) (money.Amount, error) {
		q, err := r.s.Broker.Quote(ctx, sym)
		if err != nil {
			return money.Zero, err
		}
		if age := r.m.Controls.MaxQuoteAgeMs; age != nil && !q.Time.IsZero() &&
			r.g.now().Sub(q.Time) > time.Duration(*age)*time.Millisecond {
			return money.Zero, errStaleQuote
		}
		return q.ValuationPrice(side), nil
	})
	if err != nil {
		return money.Zero, live.NewDenial(live.ReasonNoQuote, "symbol", in.NormalizedSymbol(), "error", err.Error())
	}
	return n, nil
}

type quoteErr string

func (e quoteErr) Error() string { return string(e) }

const errStaleQuote = quoteErr("quote older than max_quote_age_ms")
