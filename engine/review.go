package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// canonicalOrder is the exact order a human approves; its digest binds the grant.
func canonicalOrder(broker string, in live.OrderIntent, req live.OrderRequest) (*jsonv.Object, string) {
	amt := func(a *money.Amount) any {
		if a == nil {
			return nil
		}
		return jsonv.Number(a.String())
	}
	typ := req.Type
	if typ == "" {
		typ = live.Market
	}
	o := jsonv.ObjectOf("broker", broker, "symbol", in.NormalizedSymbol(), "side", in.Side, "type", string(typ),
		"quantity", amt(req.Quantity), "notional", amt(req.Notional), "limit_price", amt(req.LimitPrice),
		"instrument_type", string(in.InstrumentType), "asset_class", string(in.AssetClass))
	for _, f := range []struct { // a stop's trigger is what the human approves, too
		key string
		v   *money.Amount
	}{{"stop_price", req.StopPrice}, {"trail_amount", req.TrailAmount}, {"trail_percent", req.TrailPercent}} {
		if f.v != nil {
			o.Set(f.key, amt(f.v))
		}
	}
	if len(in.Legs) > 0 { // a spread: the human sees, and the digest binds, every leg
		legs := make([]any, len(in.Legs))
		for i, l := range in.Legs {
			legs[i] = jsonv.ObjectOf("symbol", l.Symbol, "side", l.Side, "ratio_qty", amt(&l.Ratio))
		}
		o.Set("legs", legs)
	}
	b, _ := jsonv.Canonical(o)
	sum := sha256.Sum256(b)
	return o, hex.EncodeToString(sum[:])
}

// review puts an order in front of a human and acts on the answer: approve once (a one-use
// grant bound to the order's digest, the gate run again before execution, waiving only the
// breach that was shown), deny with a reason, or no answer by the deadline (denied). Without
// an approver, or with the queue full, the order is denied at once; an order a human denied
// in the last ten minutes gets that denial again without asking.
func (c *call) review(ctx context.Context, sub gate.Submission, d gate.Decision, why string) Result {
	e := c.e
	c.check("review")
	all := pausedBreaches(d)
	var shown *live.Breach
	if len(all) > 0 {
		shown = all[0]
	}
	limit := ""
	if shown != nil {
		limit = shown.Limit
	}
	if e.Reviews == nil || !e.Approver {
		r := denied(live.ReasonNoApprover, "this order needs a human (%s) and none is attached", reviewWhy(why, shown))
		r.Limit = limit
		return c.record(ctx, r)
	}
	if n := len(all); n > 0 && all[n-1].Structural() {
		// No approval can waive it: asking a human would only waste their time.
		last := all[n-1]
		r := denied(live.CannotCoverCode(last.Limit), "the order also breaches %s, which no approval can waive", last.Message())
		r.Limit = limit
		return c.record(ctx, r)
	}
	intent, order, digest, ok := reviewOrder(e.BrokerKey, sub, d)
	if !ok {
		return c.record(ctx, denied(live.ReasonNoIntent, "the order could not be understood, so no human can be shown it"))
	}
	if prev, ok := e.recentDenial(digest); ok {
		r := denied(live.ReasonApprovalDenied, "a human denied this exact order at %s: %s", prev.at.UTC().Format("15:04:05"), orDash(prev.why))
		r.ApprovalID = prev.id
		return c.record(ctx, r)
	}
	max := e.MaxPending
	if max <= 0 {
		max = 5
	}
	pending, err := e.Reviews.PendingReviews(ctx)
	if err != nil {
		return c.record(ctx, denied(live.ReasonReviewUnavailable, "%v", err))
	}
	for _, p := range pending { // one order, one card: the same order again while it waits is not a second one
		if p.Digest == digest && p.Broker == e.BrokerKey {
			r := pendingResult(p, limit)
			r.Detail = fmt.Sprintf("this exact order already waits for a human (review %s, until %s UTC); it is placed once, if approved",
				p.ID, p.Deadline.UTC().Format("15:04:05"))
			return c.record(ctx, r)
		}
	}
	if len(pending) >= max {
		return c.record(ctx, denied(live.ReasonApprovalQueueFull, "%d orders already wait for review", len(pending)))
	}
	// The card, its deadline, the price it shows and the drift it tolerates all come from
	// what the gate read for this decision: the mandate it verified, the quote it valued with.
	snap := d.Read
	if snap == nil {
		snap = &gate.Snapshot{}
	}
	timeout := live.DefaultApprovalTimeout
	if snap.Mandate != nil {
		timeout = snap.Mandate.Controls.ApprovalTimeout()
	}
	now := e.now()
	it := live.ReviewItem{ID: live.RandomID("ap"), SessionID: e.Session, Broker: e.BrokerKey, Order: order, Digest: digest,
		Why: why, AgentReason: sub.Reason, Created: now, Deadline: now.Add(timeout), State: live.ReviewPending,
		MandateSHA256: snap.MandateHash}
	if shown != nil {
		it.Limit, it.LimitValue, it.Attempted = shown.Limit, shown.LimitValue.String(), shown.Attempted.String()
		msgs := make([]string, len(all))
		for i, b := range all {
			it.Breaches = append(it.Breaches, live.ReviewBreach{Limit: b.Limit, LimitValue: b.LimitValue.String(), Attempted: b.Attempted.String(), Detail: b.Message()})
			msgs[i] = b.Message()
		}
		it.Detail = strings.Join(msgs, "; ")
	} else {
		it.Detail = reviewWhy(why, nil)
	}
	ref := snap.ValuationPrice()
	if ref.Sign() <= 0 { // the gate needed no quote (a notional order): read the price once
		ref = c.refPrice(ctx, intent)
	}
	if err := e.Reviews.CreateReview(ctx, it); err != nil {
		return c.record(ctx, denied(live.ReasonReviewUnavailable, "%v", err))
	}
	c.transition(ctx, it, live.KindApprovalRequested, reviewWhy(why, shown))
	e.publish(Event{Kind: EvReviewCreated, Agent: c.t.Agent, Turn: c.t.N, Tool: c.name, Review: &it})
	w := waiting{sub: sub, it: it, all: all, ref: ref, snap: snap, timeout: timeout, limit: limit}
	if c.t.detach {
		if wctx, done, ok := e.detachReview(ctx, it.ID); ok {
			// The wait keeps its own copy of the arguments: the agent may reuse its object
			// once it has its answer, and the approved order is the one the human saw.
			if w.sub.Args != nil {
				w.sub.Args = jsonv.Clone(w.sub.Args).(*jsonv.Object)
			}
			go func() {
				defer done()
				// The outcome counts toward the agent's denial pacing as a blocking review's does.
				if r := c.await(wctx, w); r.Decision == live.DecisionDeny {
					e.noteDenial(c.t.limits, c.name, r.Code)
				}
			}()
			return pendingResult(it, limit)
		}
	}
	return c.await(ctx, w)
}

// waiting is an order in the review queue: what its answer is acted on with.
type waiting struct {
	sub     gate.Submission
	it      live.ReviewItem
	all     []*live.Breach
	ref     money.Amount
	snap    *gate.Snapshot
	timeout time.Duration
	limit   string
}

// await waits for the human's answer to a review and acts on it: the approved order is
// gated again and placed, any other answer is the call's terminal record.
func (c *call) await(ctx context.Context, w waiting) Result {
	e := c.e
	sub, it, all, ref, snap, timeout, limit := w.sub, w.it, w.all, w.ref, w.snap, w.timeout, w.limit
	digest := it.Digest
	res, err := e.Reviews.WaitReview(ctx, it.ID, e.reviewPoll(), e.now)
	if err != nil { // the turn was stopped (a halt, or cockpit quitting)
		res, _ = e.Reviews.ResolveReview(context.WithoutCancel(ctx), it.ID, live.ReviewVoided, "system", "the wait was stopped (a halt, or cockpit quitting): "+err.Error())
		if res.ID == "" {
			res = it
			res.State, res.Resolution = live.ReviewVoided, err.Error()
		}
	}
	e.publish(Event{Kind: EvReviewResolved, Agent: c.t.Agent, Turn: c.t.N, Tool: c.name, Review: &res})
	bg := context.WithoutCancel(ctx)
	var r Result
	switch res.State {
	case live.ReviewApproved:
		r := c.executeApproved(ctx, sub, res, all, gate.Drift{Ref: ref, Bps: e.DriftBps}, gate.DriftBps(snap.Mandate, e.DriftBps))
		c.reportOutcome(bg, res, r)
		return r
	case live.ReviewDenied:
		e.rememberDenial(digest, it.ID, res.Resolution)
		r = denied(live.ReasonApprovalDenied, "a human denied the order: %s", orDash(res.Resolution))
	case live.ReviewTimedOut:
		c.transition(bg, res, live.KindApprovalTimedOut, "no answer by the deadline")
		r = denied(live.ReasonApprovalTimeout, "no human answered within %s", timeout)
	default:
		c.transition(bg, res, live.KindApprovalVoided, res.Resolution)
		r = denied(live.ReasonApprovalVoided, "the review was voided: %s", orDash(res.Resolution))
	}
	r.ApprovalID, r.Limit = it.ID, limit
	return c.record(bg, r)
}

// executeApproved runs an approved order: the grant must be unused and bound to this digest,
// and the gate runs once more, fresh (halt, mandate verification, quote, drift from the price
// the human saw, lock, count), waiving only the breaches the human saw up to the values shown
// (drift bps is the tolerance for a dollar figure that moved with the price).
func (c *call) executeApproved(ctx context.Context, sub gate.Submission, it live.ReviewItem, shown []*live.Breach, dr gate.Drift, drift int64) Result {
	e := c.e
	c.check("grant")
	if err := e.Reviews.ConsumeGrant(ctx, it.ID, it.Digest); err != nil {
		r := denied(live.ReasonGrantUnusable, "%v", err)
		r.ApprovalID = it.ID
		return c.record(ctx, r)
	}
	ap := &live.Approval{Grant: it.ID, DriftBps: drift, Mandate: it.MandateSHA256} // bound to the mandate it was computed under
	covered := make([]string, len(shown))
	for i, b := range shown {
		covered[i] = breachLine(b)
		ap.Waives = append(ap.Waives, *b)
	}
	sub.Drift, sub.Approval = &dr, ap
	d := c.submit(ctx, sub)
	if d.Verdict == live.PauseForReauth {
		r := denied(live.DoesNotCoverCode(d.Breach.Limit), "%s (the approval covered %s)",
			breachLine(d.Breach), orDash(strings.Join(covered, ", ")))
		r.ApprovalID = it.ID
		return c.record(ctx, r)
	}
	r := c.gated(d)
	if d.Denial != nil && d.Denial.Code == live.ReasonStaleApproval {
		r.Detail = fmt.Sprintf("the price moved %s bps since the review (limit %s bps); ask again",
			d.Denial.Fields["moved_bps"], d.Denial.Fields["limit_bps"])
	}
	r.ApprovalID = it.ID
	return r
}

// pausedBreaches is what a review shows: every breach of a paused order (the gate's list, or
// its one breach), none for an order that only waits for supervision.
func pausedBreaches(d gate.Decision) []*live.Breach {
	switch {
	case d.Verdict != live.PauseForReauth || d.Breach == nil:
		return nil
	case len(d.Breaches) > 0:
		return d.Breaches
	}
	return []*live.Breach{d.Breach}
}

// breachLine is a breach in a few words: "max_trades_per_day 40/40 used today".
func breachLine(b *live.Breach) string {
	if b.Limit == live.LimitTradesPerDay && b.Detail == "" {
		return fmt.Sprintf("%s %s/%s used today", b.Limit, b.Attempted.Sub(money.FromInt(1)), b.LimitValue)
	}
	return b.Message()
}

// reportOutcome tells the review store, and so every screen and terminal, what an approved
// order did: sent, or why the approval did not go through.
func (c *call) reportOutcome(ctx context.Context, it live.ReviewItem, r Result) {
	switch {
	case r.Status == StatusOK:
		it.Outcome = live.OutcomeSent + ": the gate ran it again and the broker accepted it"
		if o, ok := r.Data.(*jsonv.Object); ok {
			id, _ := o.Get("order_id")
			it.Outcome = fmt.Sprintf("%s: the gate ran it again; order %v accepted", live.OutcomeSent, id)
		}
	case r.Decision == live.DecisionAllow:
		it.Outcome = fmt.Sprintf("%s, but not accepted: %s", live.OutcomeSent, orDash(r.Detail))
	default:
		it.Outcome = "approval did not go through: " + orDash(r.Detail)
	}
	if err := c.e.Reviews.SetReviewOutcome(ctx, it.ID, it.Outcome); err != nil {
		c.e.log().Error("review outcome not stored", "id", it.ID, "err", err)
	}
	c.e.publish(Event{Kind: EvReviewOutcome, Agent: c.t.Agent, Turn: c.t.N, Tool: c.name, Review: &it, Result: &r})
}

// refPrice is the valuation price of the order's symbol now (zero when unknown).
func (c *call) refPrice(ctx context.Context, in live.OrderIntent) money.Amount {
	q, err := c.e.Broker.Quote(ctx, in.NormalizedSymbol())
	if err != nil {
		return money.Zero
	}
	return q.ValuationPrice(in.Side)
}

// transition audits a review's state change (the resolver of an approve or deny audits it
// themselves; timeouts and voids are the system's).
func (c *call) transition(ctx context.Context, it live.ReviewItem, kind, why string) {
	if c.e.Audit == nil {
		return
	}
	actor := c.actor
	if kind != live.KindApprovalRequested {
		actor = live.System("review", c.e.Session)
	}
	if err := c.e.Audit.Record(context.WithoutCancel(ctx), live.AuditRecord{Time: c.e.now(), Actor: actor, Kind: kind, Outcome: string(it.State),
		Broker: it.Broker, Tool: c.name, ApprovalID: it.ID, Reason: live.Reason(it.Limit), Request: it.Order,
		Intent: fmt.Sprintf("review %s: %s", it.ID, why),
		Detail: jsonv.ObjectOf("digest", it.Digest, "why", it.Why, "deadline", live.FormatTimestamp(it.Deadline), "agent_reason", it.AgentReason)}); err != nil {
		c.e.auditFailed(kind, err)
	}
}

func reviewWhy(why string, b *live.Breach) string {
	switch {
	case b != nil:
		return fmt.Sprintf("%s: %s > %s", b.Limit, b.Attempted, b.LimitValue)
	case why == "escalated":
		return "this turn read external content the scanner flagged"
	}
	return "every order waits for a human under supervised autonomy"
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// ErrNoReviews reports an engine without a review store.
var ErrNoReviews = errors.New("no review store")
