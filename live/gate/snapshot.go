package gate

import (
	"context"
	"fmt"

	"cockpit/live"
	"cockpit/live/money"
)

// DefaultDriftBps is how far the price may move between a review and the send when the
// mandate sets no price collar.
const DefaultDriftBps = 100

// Snapshot is what one gate run read, so a review shows and re-checks one consistent view:
// the valued intent, the quote it valued with (nil when it read none, or none was fresh), the
// book (positions and resting orders, as the limits saw it), the positions alone, and the
// verified mandate with its hash.
type Snapshot struct {
	Intent      *live.OrderIntent
	Quote       *live.Quote
	Book        live.Book
	Positions   live.Book
	Mandate     *live.Mandate
	MandateHash string
}

// Drift bounds how far the price may move between a review (Ref, the valuation price the
// human saw) and the gate run that sends the approved order: Bps, or when zero the verified
// mandate's price collar, else DefaultDriftBps.
type Drift struct {
	Ref money.Amount
	Bps int64
}

// DriftBps is the drift an approval under m tolerates: override when positive, else m's
// price collar, else DefaultDriftBps.
func DriftBps(m *live.Mandate, override int64) int64 {
	switch {
	case override > 0:
		return override
	case m != nil && m.Controls.PriceCollarBps != nil:
		return m.Controls.PriceCollarBps.Int64()
	}
	return DefaultDriftBps
}

// ValuationPrice is the snapshot's price for its intent (zero without a fresh quote).
func (s *Snapshot) ValuationPrice() money.Amount {
	if s == nil || s.Quote == nil || s.Intent == nil {
		return money.Zero
	}
	return s.Quote.ValuationPrice(s.Intent.Side)
}

func (r *run) snapshot() *Snapshot {
	s := &Snapshot{Book: r.book, Positions: r.held, Mandate: r.m, MandateHash: r.hash}
	if r.intent.Symbol != "" || r.intent.Side != "" {
		in := r.intent
		s.Intent = &in
	}
	if q := r.quote; q != nil && (q.Last.Sign() > 0 || q.Ask.Sign() > 0 || q.Bid.Sign() > 0) {
		c := *q
		s.Quote = &c
	}
	return s
}

// drift is the re-check of an approved order's price: this run's fresh quote against the
// price the human saw. A price it cannot read does not block (as before the snapshot): the
// order is still valued and checked by the rest of the run.
func (r *run) drift(ctx context.Context) *live.Denial {
	dr := r.s.Drift
	if dr == nil {
		return nil
	}
	r.check("drift")
	if dr.Ref.Sign() <= 0 {
		return nil
	}
	// The card showed a price: with no fresh price now, the drift cannot be judged, and an
	// approval is not sent on a price nobody can compare (fail closed).
	q, ok := r.freshQuote(ctx)
	if !ok {
		return live.NewDenial(live.ReasonStaleApproval, "error", "no fresh quote to compare with the price the review showed")
	}
	now := q.ValuationPrice(r.intent.Side)
	if now.Sign() <= 0 {
		return live.NewDenial(live.ReasonStaleApproval, "error", "no usable price to compare with the price the review showed")
	}
	bps := DriftBps(r.m, dr.Bps)
	moved := now.Sub(dr.Ref).Abs().Mul(money.FromInt(10000)).Div(dr.Ref)
	if moved.GreaterThan(money.FromInt(bps)) {
		return live.NewDenial(live.ReasonStaleApproval, "moved_bps", moved.Round(1).String(), "limit_bps", fmt.Sprint(bps))
	}
	return nil
}
