package live

import (
	"fmt"
	"maps"
	"slices"
	"strings"
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
	return ReducesOnly(book.Net(intent.NormalizedSymbol()), signed)
}

// DenialBreach presents a denial in the shape of a breach (kind = the reason code), for
// reports that list both the same way.
func DenialBreach(d *Denial) *Breach {
	return &Breach{Kind: BreachKind(d.Code), Detail: DescribeDenial(d)}
}

// DescribeDenial renders a denial for people: the code in words, then the details.
func DescribeDenial(d *Denial) string {
	words := map[Reason]string{
		ReasonInvalidBroker:    "the broker key is not valid",
		ReasonNoMandate:        "no mandate is committed for this broker",
		ReasonInvalidMandate:   "the committed mandate is invalid",
		ReasonExpired:          "the mandate has expired — re-authorise with a new commit",
		ReasonHalted:           "live trading is halted",
		ReasonReduceOnly:       "reduce-only: the order would not reduce a position",
		ReasonNoIntent:         "the order could not be understood",
		ReasonNoQuote:          "no fresh price to value the order",
		ReasonLockBusy:         "another order submission is in progress",
		ReasonLockError:        "the order-submission lock is unavailable",
		ReasonFleetUnavailable: "the fleet's day count cannot be reached or written",
		ReasonLossLimit:        "a loss limit is crossed: the broker is halted until an operator resumes",
		ReasonEquityUnknown:    "the account equity is unknown, so the loss limits cannot be checked",
		ReasonMandateChanged:   "the mandate changed since the review: the approval covers nothing, ask again",
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

// More reason codes, for the gate's own steps and outcomes.
const (
	ReasonQuantityCap   Reason = "quantity_cap"
	ReasonPriceCollar   Reason = "price_collar"
	ReasonDuplicate     Reason = "duplicate_order"
	ReasonRateLimited   Reason = "rate_limited"
	ReasonJournal       Reason = "journal_unavailable"
	ReasonBrokerReject  Reason = "broker_rejected"
	ReasonIndeterminate Reason = "indeterminate"
	ReasonStructural    Reason = "structural_contract"
	ReasonNotReducing   Reason = "not_reducing"
	ReasonBreach        Reason = "breach"
	ReasonApproved      Reason = "approved"
	ReasonCancelled     Reason = "cancelled"
)

// ReasonAuditUnavailable halts trading when a journal row or an audit record cannot be written
// (DV15: no record, no trade).
const ReasonAuditUnavailable Reason = "audit_unavailable"

// ReasonCountUnavailable denies an order when neither the counter file nor the order journal
// can tell how many orders were forwarded today (DV14).
const ReasonCountUnavailable Reason = "count_unavailable"

// ReasonStaleApproval denies an approved order whose price moved too far since the review.
const ReasonStaleApproval Reason = "stale_approval"

// ReasonMandateChanged denies an approved order when the verified mandate is not the one its
// review was computed under: the breaches the human waived were measured against other limits.
const ReasonMandateChanged Reason = "mandate_changed"
