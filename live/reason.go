package live

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Reason is a stable reason code for a gate outcome.
type Reason string

// Reason codes. They are part of the audit trail's vocabulary: never rename one.
const (
	ReasonInvalidBroker  Reason = "invalid_broker"
	ReasonNoMandate      Reason = "no_mandate"
	ReasonInvalidMandate Reason = "invalid_mandate"
	ReasonExpired        Reason = "mandate_expired"
	ReasonHalted         Reason = "halted"
	ReasonReduceOnly     Reason = "reduce_only"
	ReasonNoIntent       Reason = "intent_unparsed"
	ReasonNoQuote        Reason = "no_quote"
	ReasonLockBusy       Reason = "lock_busy"
	ReasonLockError      Reason = "lock_unavailable"
)

// Denial is a gate refusal before or around CheckMandate. Its text is Nautilus-style:
// "CODE: key=value, key=value".
type Denial struct {
	Code   Reason
	Fields map[string]string
	// Reauth marks denials that need a new mandate (expiry) rather than a fix of the order.
	Reauth bool
}

// NewDenial builds a denial; kv alternates keys and values.
func NewDenial(code Reason, kv ...string) *Denial {
	d := &Denial{Code: code, Fields: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		d.Fields[kv[i]] = kv[i+1]
	}
	return d
}

func (d *Denial) Error() string {
	if len(d.Fields) == 0 {
		return strings.ToUpper(string(d.Code))
	}
	keys := slices.Sorted(maps.Keys(d.Fields))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + d.Fields[k]
	}
	return strings.ToUpper(string(d.Code)) + ": " + strings.Join(parts, ", ")
}

// GateMandate runs the gate's first steps for an order on broker: a mandate must be on file
// and valid (else no_mandate / invalid_mandate), exactly the one last committed in the ledger
// (else mandate_tampered / mandate_unverified, DV13; a nil ledger verifies nothing) and not
// expired (mandate_expired, an unparseable expiry counts as expired).
func GateMandate(ctx context.Context, root Root, ledger MandateLedger, broker string, now time.Time) (*Mandate, *Denial) {
	m, _, den := gateMandate(ctx, root, ledger, broker, now)
	return m, den
}

// gateMandate is GateMandate with the verified hash of the mandate it returns.
func gateMandate(ctx context.Context, root Root, ledger MandateLedger, broker string, now time.Time) (*Mandate, string, *Denial) {
	c := ReadMandate(ctx, root, ledger, broker)
	if den := c.denial(broker); den != nil {
		return nil, "", den
	}
	m := c.Mandate
	exp, err := m.Expiry()
	if err != nil {
		d := NewDenial(ReasonExpired, "broker", broker, "expires_at", m.Consent.ExpiresAt, "error", "unparseable expiry")
		d.Reauth = true
		return nil, "", d
	}
	if !now.Before(exp) {
		d := NewDenial(ReasonExpired, "broker", broker, "expires_at", m.Consent.ExpiresAt)
		d.Reauth = true
		return nil, "", d
	}
	return m, c.Hash, nil
}

// GateState runs the trading-state step: HALTED denies every order; REDUCE_ONLY admits only
// an order that reduces its symbol's absolute exposure without flipping it. book may be
// unreadable, in which case a REDUCE_ONLY order is denied (its effect cannot be known).
func GateState(root Root, broker string, intent OrderIntent, book Book) *Denial {
	switch StateOf(root, broker) {
	case Halted:
		return NewDenial(ReasonHalted, "broker", broker)
	case ReduceOnly:
		if book.Err != nil {
			return NewDenial(ReasonReduceOnly, "broker", broker, "error", "positions unreadable: "+book.Err.Error())
		}
		if !ReducesPosition(book, intent) {
			return NewDenial(ReasonReduceOnly, "broker", broker, "symbol", intent.NormalizedSymbol(), "side", intent.Side)
		}
	}
	return nil
}

// ReducesPosition reports whether an order shrinks |position| in its symbol without flipping
// it: a sell against a long at most as large, or a buy against a short. The size is the
// notional; an order without one is not known to reduce.
func ReducesPosition(book Book, intent OrderIntent) bool {
	if intent.NotionalUSD == nil || (intent.Side != Buy && intent.Side != Sell) {
		return false
	}
	signed := *intent.NotionalUSD
	if intent.Side == Sell {
		signed = signed.Neg()
	}
	return reducesOnly(book.Net(intent.NormalizedSymbol()), signed)
}

// DenialBreach presents a denial in the shape of a breach (kind = the reason code), for
// reports that list both the same way.
func DenialBreach(d *Denial) *Breach {
	return &Breach{Kind: BreachKind(d.Code), Detail: DescribeDenial(d)}
}

// DescribeDenial renders a denial for people: the code in words, then the details.
func DescribeDenial(d *Denial) string {
	words := map[Reason]string{
		ReasonInvalidBroker:  "the broker key is not valid",
		ReasonNoMandate:      "no mandate is committed for this broker",
		ReasonInvalidMandate: "the committed mandate is invalid",
		ReasonExpired:        "the mandate has expired — re-authorise with a new commit",
		ReasonHalted:         "live trading is halted",
		ReasonReduceOnly:     "reduce-only: the order would not reduce a position",
		ReasonNoIntent:       "the order could not be understood",
		ReasonNoQuote:        "no fresh price to value the order",
		ReasonLockBusy:       "another order submission is in progress",
		ReasonLockError:      "the order-submission lock is unavailable",
	}
	s := words[d.Code]
	if s == "" {
		s = integrityWords[d.Code]
	}
	if s == "" {
		s = string(d.Code)
	}
	return fmt.Sprintf("%s (%s)", s, d.Error())
}
