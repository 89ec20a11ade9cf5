package gate

import (
	"context"
	"time"

	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/live/mandatefile"
)

// GateMandate runs the gate's first steps for an order on broker: a mandate must be on file
// and valid (else no_mandate / invalid_mandate), exactly the one last committed in the ledger
// (else mandate_tampered / mandate_unverified, DV13; a nil ledger verifies nothing) and not
// expired (mandate_expired, an unparseable expiry counts as expired).
func GateMandate(ctx context.Context, root live.Root, ledger live.MandateLedger, broker string, now time.Time) (*live.Mandate, *live.Denial) {
	m, _, den := gateMandate(ctx, root, ledger, broker, now)
	return m, den
}

// gateMandate is GateMandate with the verified hash of the mandate it returns.
func gateMandate(ctx context.Context, root live.Root, ledger live.MandateLedger, broker string, now time.Time) (*live.Mandate, string, *live.Denial) {
	c := mandatefile.Read(ctx, root, ledger, broker)
	if den := c.Denial(broker); den != nil {
		return nil, "", den
	}
	m := c.Mandate
	exp, err := m.Expiry()
	if err != nil {
		d := live.NewDenial(live.ReasonExpired, "broker", broker, "expires_at", m.Consent.ExpiresAt, "error", "unparseable expiry")
		d.Reauth = true
		return nil, "", d
	}
	if !now.Before(exp) {
		d := live.NewDenial(live.ReasonExpired, "broker", broker, "expires_at", m.Consent.ExpiresAt)
		d.Reauth = true
		return nil, "", d
	}
	return m, c.Hash, nil
}

// GateState runs the trading-state step: HALTED denies every order; REDUCE_ONLY admits only
// an order that reduces its symbol's absolute exposure without flipping it. book may be
// unreadable, in which case a REDUCE_ONLY order is denied (its effect cannot be known).
func GateState(root live.Root, broker string, intent live.OrderIntent, book live.Book) *live.Denial {
	switch halt.StateOf(root, broker) {
	case live.Halted:
		return live.NewDenial(live.ReasonHalted, "broker", broker)
	case live.ReduceOnly:
		if book.Err != nil {
			return live.NewDenial(live.ReasonReduceOnly, "broker", broker, "error", "positions unreadable: "+book.Err.Error())
		}
		if !live.ReducesPosition(book, intent) {
			return live.NewDenial(live.ReasonReduceOnly, "broker", broker, "symbol", intent.NormalizedSymbol(), "side", intent.Side)
		}
	}
	return nil
}
