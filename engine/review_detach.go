package engine

import (
	"context"
	"fmt"

	"cockpit/live"
)

// detachReview starts the background wait of a review raised in one of Run's turns: its
// context is the loop's (quitting ends it) and a halt cancels it (SetHalted), as a halt stops
// a turn; Run waits for it before returning. ok is false outside Run (no loop to outlive), and
// when the turn was already stopped or a halt is in force: the caller then waits on the turn,
// whose stop voids the review at once.
func (e *Engine) detachReview(turn context.Context, id string) (ctx context.Context, done func(), ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.loop == nil || e.loop.Err() != nil || turn.Err() != nil || e.Paused() {
		return nil, nil, false
	}
	ctx, cancel := context.WithCancel(e.loop)
	if e.awaiting == nil {
		e.awaiting = map[string]context.CancelFunc{}
	}
	e.awaiting[id] = cancel
	e.awaitWG.Add(1)
	return ctx, func() {
		e.mu.Lock()
		delete(e.awaiting, id)
		e.mu.Unlock()
		cancel()
		e.awaitWG.Done()
	}, true
}

// stopAwaiting cancels every background review wait (a halt: their reviews are voided, as
// a stopped turn's is). Callers hold e.mu.
func (e *Engine) stopAwaiting() {
	for _, cancel := range e.awaiting {
		cancel()
	}
}

// Awaiting is the number of reviews whose orders wait in the background for a human.
func (e *Engine) Awaiting() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.awaiting)
}

// pendingResult is what the agent gets for an order that waits for a human in the background:
// not placed yet, and never placed without the approval (the answer is acted on when it comes,
// through the gate again, and audited as this call's outcome).
func pendingResult(it live.ReviewItem, limit string) Result {
	return Result{Status: StatusDenied, Decision: live.DecisionAsk, Code: ReasonReviewPending, ApprovalID: it.ID, Limit: limit,
		Detail: fmt.Sprintf("the order waits for a human (review %s, until %s UTC); it is placed only if approved, through the gate again; carry on with other orders",
			it.ID, it.Deadline.UTC().Format("15:04:05"))}
}

// ReasonReviewPending is the code an agent gets for an order left waiting for a human while
// its turn goes on (Engine.DetachReviews).
const ReasonReviewPending live.Reason = "review_pending"
