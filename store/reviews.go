package store

import (
	"context"
	"errors"
	"time"

	"cockpit/live"
	"cockpit/live/jsonv"
)

// Reviews is the engine's review queue kept in the store, so `cockpit approvals approve` in
// another terminal resolves what the engine waits on.
type Reviews struct{ DB *DB }

var _ live.ReviewStore = Reviews{}

// CreateReview implements live.ReviewStore.
func (r Reviews) CreateReview(ctx context.Context, it live.ReviewItem) error {
	order, err := jsonv.Canonical(it.Order)
	if err != nil {
		return err
	}
	a := Approval{ID: it.ID, SessionID: it.SessionID, Broker: it.Broker, OrderJSON: string(order),
		Digest: it.Digest, Why: it.Why, Limit: it.Limit, LimitValue: it.LimitValue, Attempted: it.Attempted, Detail: it.Detail,
		AgentReason: it.AgentReason, CreatedAt: it.Created, Deadline: it.Deadline, Mandate: it.MandateSHA256}
	for _, b := range it.Breaches {
		a.Breaches = append(a.Breaches, ApprovalBreach(b))
	}
	return r.DB.CreateApproval(ctx, a)
}

// WaitReview implements live.ReviewStore.
func (r Reviews) WaitReview(ctx context.Context, id string, poll time.Duration, now func() time.Time) (live.ReviewItem, error) {
	a, err := r.DB.WaitResolved(ctx, id, poll, now)
	return ReviewItem(a), err
}

// ResolveReview implements live.ReviewStore.
func (r Reviews) ResolveReview(ctx context.Context, id string, state live.ReviewState, by, why string) (live.ReviewItem, error) {
	a, err := r.DB.Resolve(ctx, id, ApprovalState(state), by, why)
	if errors.Is(err, ErrNotPending) {
		return ReviewItem(a), nil // someone resolved it first: theirs stands
	}
	return ReviewItem(a), err
}

// ConsumeGrant implements live.ReviewStore.
func (r Reviews) ConsumeGrant(ctx context.Context, id, digest string) error {
	return r.DB.ConsumeGrant(ctx, id, digest)
}

// PendingReviews implements live.ReviewStore.
func (r Reviews) PendingReviews(ctx context.Context) ([]live.ReviewItem, error) {
	as, err := r.DB.Approvals(ctx, ApprovalPending, 1000)
	if err != nil {
		return nil, err
	}
	out := make([]live.ReviewItem, len(as))
	for i, a := range as {
		out[i] = ReviewItem(a)
	}
	return out, nil
}

// VoidPendingReviews implements live.ReviewStore.
func (r Reviews) VoidPendingReviews(ctx context.Context, why string) (int64, error) {
	return r.DB.VoidPending(ctx, why)
}

// SetReviewOutcome implements live.ReviewStore.
func (r Reviews) SetReviewOutcome(ctx context.Context, id, outcome string) error {
	return r.DB.SetApprovalOutcome(ctx, id, outcome)
}

// ReviewItem converts a stored approval to the engine's review item.
func ReviewItem(a Approval) live.ReviewItem {
	it := live.ReviewItem{ID: a.ID, SessionID: a.SessionID, Broker: a.Broker, Digest: a.Digest, Why: a.Why,
		Limit: a.Limit, LimitValue: a.LimitValue, Attempted: a.Attempted, Detail: a.Detail, AgentReason: a.AgentReason,
		Created: a.CreatedAt, Deadline: a.Deadline, State: live.ReviewState(a.State), ResolvedBy: a.ResolvedBy,
		ResolvedAt: a.ResolvedAt, Resolution: a.Resolution, Outcome: a.Outcome, MandateSHA256: a.Mandate}
	for _, b := range a.Breaches {
		it.Breaches = append(it.Breaches, live.ReviewBreach(b))
	}
	if a.OrderJSON != "" {
		if v, err := jsonv.Parse([]byte(a.OrderJSON), jsonv.Options{}); err == nil {
			it.Order, _ = v.(*jsonv.Object)
		}
	}
	return it
}
