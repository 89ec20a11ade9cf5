package live

import (
	"context"
	"fmt"
	"strings"
	"time"

	"cockpit/live/jsonv"
)

// ReviewState is where a review item stands.
type ReviewState string

// Review states.
const (
	ReviewPending  ReviewState = "pending"
	ReviewApproved ReviewState = "approved"
	ReviewDenied   ReviewState = "denied"
	ReviewTimedOut ReviewState = "timed_out"
	ReviewVoided   ReviewState = "voided"
)

// ReviewItem is an order waiting for a human: the exact order and its digest, why it waits,
// the breached limit with its values, the agent's stated reason (untrusted) and a deadline.
type ReviewItem struct {
	ID          string
	SessionID   string
	Broker      string
	Order       *jsonv.Object // canonical order
	Digest      string        // sha256 of the canonical order
	Why         string        // supervised | breach | escalated
	Limit       string
	LimitValue  string
	Attempted   string
	Detail      string
	AgentReason string
	Created     time.Time
	Deadline    time.Time
	State       ReviewState
	ResolvedBy  string
	ResolvedAt  time.Time
	Resolution  string
	Breaches    []ReviewBreach // every breach shown (the first is Limit); an approval covers these
	Outcome     string         // after an approval: what the re-checked order did
	// MandateSHA256 is the verified mandate the item was computed under: an approval of it
	// covers nothing under another mandate (the gate refuses it, mandate_changed).
	MandateSHA256 string
}

// ReviewBreach is one breach on a review card.
type ReviewBreach struct {
	Limit, LimitValue, Attempted, Detail string
}

// Went reports whether an approved order went to the broker (its Outcome says so).
func (it *ReviewItem) Went() bool { return strings.HasPrefix(it.Outcome, OutcomeSent) }

// OutcomeSent starts the Outcome of an approved order the gate forwarded.
const OutcomeSent = "sent"

// ReviewStore keeps the review queue where another process can resolve it.
type ReviewStore interface {
	CreateReview(ctx context.Context, it ReviewItem) error
	// WaitReview returns when the item is resolved (by anyone), or resolves it timed_out at its
	// deadline, or fails when ctx ends. It must notice another process's resolution within poll.
	WaitReview(ctx context.Context, id string, poll time.Duration, now func() time.Time) (ReviewItem, error)
	ResolveReview(ctx context.Context, id string, state ReviewState, by, why string) (ReviewItem, error)
	ConsumeGrant(ctx context.Context, id, digest string) error
	PendingReviews(ctx context.Context) ([]ReviewItem, error)
	VoidPendingReviews(ctx context.Context, why string) (int64, error)
	// SetReviewOutcome records what an approved order did when the gate ran it again.
	SetReviewOutcome(ctx context.Context, id, outcome string) error
}

// OrderText is the order under review in a few words: "buy $6000 AAPL", "sell 10 TSLA @ 245"
// ("" without an order). upperSide capitalises the side; a non-empty notionalMask stands in
// for a notional amount (the screen's privacy mode).
func (it *ReviewItem) OrderText(upperSide bool, notionalMask string) string {
	if it.Order == nil {
		return ""
	}
	get := func(k string) string {
		v, _ := it.Order.Get(k)
		if v == nil {
			return ""
		}
		return fmt.Sprint(v)
	}
	side, size := get("side"), get("quantity")
	if upperSide {
		side = strings.ToUpper(side)
	}
	if n := get("notional"); n != "" {
		size = "$" + n
		if notionalMask != "" {
			size = notionalMask
		}
	}
	s := fmt.Sprintf("%s %s %s", side, size, get("symbol"))
	if lp := get("limit_price"); lp != "" {
		s += " @ " + lp
	}
	return s
}
