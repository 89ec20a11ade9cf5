package gate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cockpit/live"
	"cockpit/live/counter"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// operatorLockWait bounds how long a human's order waits for the submit lock (an agent order
// may be in flight when the operator acts); the agent's own path never waits.
const operatorLockWait = 2 * time.Second

// lockPatiently takes the submit lock, retrying briefly while another submission holds it.
func (g *Gate) lockPatiently(ctx context.Context, key string) (*counter.SubmitLock, error) {
	l, _, err := g.lockBy(ctx, key, time.Now().Add(operatorLockWait))
	return l, err
}

// ReduceRequest is a human's order that must shrink a position: a quantity in the position's
// opposite direction, no larger than the position.
type ReduceRequest struct {
	Broker     live.Broker
	BrokerKey  string
	Symbol     string
	Side       string
	Quantity   money.Amount
	Type       live.OrderType // market (default) or limit
	LimitPrice *money.Amount  // for limit orders
	Actor      live.Principal // the human (or the halt action acting for the mandate)
	Why        string
	lockHeld   bool // the caller (a flatten) holds the broker's submit lock already
}

// SubmitReducing is the operator path: it works while HALTED and without a mandate, and admits
// only an order that reduces |position| in its symbol without flipping it, checked against a
// fresh positions read. It takes the submit lock, writes the journal, sends once with
// ReduceOnly set, never counts against the agent's daily limit, and is audited with the human
// as principal.
func (g *Gate) SubmitReducing(ctx context.Context, rr ReduceRequest) Decision {
	d := Decision{StartedAt: g.now(), Checked: []string{"risk_reducing"}}
	key := rr.BrokerKey
	if key == "" && rr.Broker != nil {
		key = rr.Broker.Name()
	}
	req := live.OrderRequest{Symbol: rr.Symbol, Side: rr.Side, Type: rr.Type, Quantity: &rr.Quantity,
		LimitPrice: rr.LimitPrice, ReduceOnly: true}
	if req.Type == "" {
		req.Type = live.Market
	}
	op := operation{g: g, actor: rr.Actor, key: key, tool: "place_order", req: &req, why: rr.Why}
	var err error
	if key, err = live.NormalizeBroker(key); err != nil || rr.Broker == nil {
		return op.refuse(d, live.NewDenial(live.ReasonInvalidBroker, "broker", rr.BrokerKey))
	}
	op.key = key
	pos, err := rr.Broker.Positions(ctx)
	if err != nil {
		return op.refuse(d, live.NewDenial(live.ReasonNotReducing, "symbol", rr.Symbol, "error", "positions unreadable: "+err.Error()))
	}
	held := money.Zero
	for _, p := range pos {
		if p.Symbol != rr.Symbol {
			continue
		}
		if p.QtyUnknown && p.Open() { // whether the order reduces it cannot be known
			return op.refuse(d, live.NewDenial(live.ReasonNotReducing, "symbol", rr.Symbol, "error",
				"the broker gave the position a value and no quantity"))
		}
		held = held.Add(p.Qty)
	}
	signed := rr.Quantity
	if rr.Side == live.Sell {
		signed = signed.Neg()
	}
	if rr.Quantity.Sign() <= 0 || (rr.Side != live.Buy && rr.Side != live.Sell) || !live.ReducesOnly(held, signed) {
		return op.refuse(d, live.NewDenial(live.ReasonNotReducing, "symbol", rr.Symbol, "side", rr.Side,
			"quantity", rr.Quantity.String(), "position", held.String()))
	}
	if !rr.lockHeld {
		lock, err := g.lockPatiently(ctx, key)
		if err != nil {
			code := live.ReasonLockError
			if errors.Is(err, counter.ErrLockBusy) {
				code = live.ReasonLockBusy
			}
			return op.refuse(d, live.NewDenial(code, "broker", key))
		}
		defer lock.Unlock()
	}
	req.ClientOrderID = g.clientOrderID()
	d.ClientOrderID = req.ClientOrderID
	if g.Journal == nil {
		return op.refuse(d, live.NewDenial(live.ReasonJournal, "error", "no journal attached"))
	}
	if err := g.Journal.Begin(ctx, live.JournalEntry{ClientOrderID: req.ClientOrderID, Broker: key, Actor: rr.Actor, Request: req, Created: g.now()}); err != nil {
		return op.refuse(d, live.NewDenial(live.ReasonJournal, "error", err.Error()))
	}
	d.Verdict, d.Forwarded = live.Allow, true
	order, err := rr.Broker.PlaceOrder(ctx, req)
	_ = counter.NoteBookChange(g.Root, key, g.now()) // sent or not known: orders that read their book before look again (rerun.go); a failed note leaves only the reference's gap
	if err != nil && errors.Is(err, live.ErrIndeterminate) {
		if o, lookErr := rr.Broker.OrderByClientID(ctx, req.ClientOrderID); lookErr == nil {
			order, err = o, nil
		} else if errors.Is(lookErr, live.ErrOrderNotFound) {
			err = live.Rejected("the broker never received the order (" + err.Error() + ")")
		}
	}
	return op.outcome(ctx, d, order, err)
}

// Cancel cancels one resting order. Cancels always pass (halted or not, mandate or not); each
// is journaled and audited with its principal and never retried.
func (g *Gate) Cancel(ctx context.Context, b live.Broker, brokerKey, orderID string, actor live.Principal) Decision {
	if brokerKey == "" && b != nil {
		brokerKey = b.Name()
	}
	d := Decision{StartedAt: g.now(), Checked: []string{"cancel"}, Verdict: live.Allow, Forwarded: true}
	op := operation{g: g, actor: actor, key: brokerKey, tool: "cancel_order", cancel: orderID}
	if b == nil {
		return op.refuse(d, live.NewDenial(live.ReasonInvalidBroker, "broker", brokerKey))
	}
	err := b.CancelOrder(ctx, orderID)
	return op.outcome(ctx, d, live.Order{ID: orderID, Status: live.StatusCancelled}, err)
}

// OperatorAction runs a human's non-order write (closing a position by id, editing a stop)
// without the mandate, halt or lock, audited with checked ["risk_reducing"]. A non-empty
// refusal denies it first (a structural contract the broker cannot honour).
func (g *Gate) OperatorAction(ctx context.Context, brokerKey, tool string, args *jsonv.Object, actor live.Principal, refusal string, do func(context.Context) (any, error)) Decision {
	d := Decision{StartedAt: g.now()}
	op := operation{g: g, actor: actor, key: brokerKey, tool: tool, args: args}
	if refusal != "" {
		d.Checked = []string{"structural_contract"}
		return op.refuse(d, live.NewDenial(live.ReasonStructural, "reason", refusal))
	}
	d.Checked = []string{"risk_reducing"}
	d.Verdict, d.Forwarded = live.Allow, true
	reply, err := do(ctx)
	if err == nil {
		if o, ok := reply.(*jsonv.Object); ok && live.IsErrorEnvelope(o) {
			err = live.Rejected(live.EnvelopeError(o, "broker action returned an error"))
		}
	}
	return op.outcome(ctx, d, live.Order{Reply: reply}, err)
}

// operation audits one operator-path call.
type operation struct {
	g      *Gate
	actor  live.Principal
	key    string
	tool   string
	req    *live.OrderRequest
	args   *jsonv.Object
	cancel string
	why    string
}

func (op operation) refuse(d Decision, den *live.Denial) Decision {
	d.Verdict, d.Denial, d.Reason, d.Outcome = live.Deny, den, den.Code, live.OutcomeBlocked
	return op.audit(context.Background(), d, live.KindOrderRejected, live.OutcomeBlocked, den.Error(), nil)
}

func (op operation) outcome(ctx context.Context, d Decision, order live.Order, err error) Decision {
	kind := live.KindOrderPlaced
	if op.cancel != "" {
		kind = live.KindOrderCancelled
	}
	d.BrokerErr = err
	state, detail := live.JournalAccepted, ""
	switch {
	case err == nil:
		d.Order, d.Outcome = &order, live.OutcomeAccepted
	case errors.Is(err, live.ErrIndeterminate):
		d.Outcome, d.Reason, state, detail = live.OutcomeIndeterminate, live.ReasonIndeterminate, live.JournalIndeterminate, err.Error()
		kind = live.KindOrderRejected
	default:
		d.Outcome, d.Reason, state, detail = live.OutcomeRejected, live.ReasonBrokerReject, live.JournalRejected, err.Error()
		kind = live.KindOrderRejected
	}
	if op.req != nil && op.g.Journal != nil {
		if jerr := op.g.Journal.Finish(context.WithoutCancel(ctx), op.req.ClientOrderID, state, order.ID, detail, op.g.now()); jerr != nil {
			d.AuditErr = fmt.Errorf("journal outcome: %w", jerr)
		}
	}
	outcome := d.Outcome
	if outcome == live.OutcomeRejected {
		outcome = live.OutcomeError
	}
	msg := ""
	if err != nil {
		msg = brokerMessage(err)
	}
	return op.audit(ctx, d, kind, outcome, msg, order.Reply)
}

func (op operation) audit(ctx context.Context, d Decision, kind, outcome, errText string, response any) Decision {
	gd := &live.GateDecision{Allowed: d.Verdict == live.Allow, Checked: append([]string(nil), d.Checked...), Decision: d.Verdict.Decision()}
	if d.Verdict == live.Allow && op.cancel != "" {
		gd.Decision = live.DecisionCancel
	}
	rec := live.AuditRecord{Time: op.g.now(), Actor: op.actor, Kind: kind, Outcome: outcome, Reason: d.Reason,
		Broker: op.key, Tool: op.tool, ClientOrderID: d.ClientOrderID, Response: response, Error: errText, Decision: gd}
	switch {
	case op.cancel != "":
		rec.OrderID = op.cancel
		rec.Intent = "cancel order " + op.cancel
		rec.Request = jsonv.ObjectOf("action", "cancel", "order_id", op.cancel)
	case op.req != nil:
		rec.Intent = fmt.Sprintf("reduce %s: %s %s @ %s", op.req.Symbol, op.req.Side, op.req.Quantity, op.req.Type)
		rec.Request = *op.req
	default:
		rec.Request = op.args
	}
	if d.Order != nil && op.cancel == "" {
		rec.OrderID = d.Order.ID
	}
	if op.why != "" {
		rec.Detail = jsonv.ObjectOf("why", op.why)
	}
	if op.g.Audit == nil {
		d.AuditErr = errors.New("no audit sink attached")
	} else if err := op.g.Audit.Record(context.WithoutCancel(ctx), rec); err != nil {
		d.AuditErr = err
	}
	if d.AuditErr != nil { // DV15: the operator's action stands, but nothing else goes
		op.g.TripAuditHalt(fmt.Errorf("audit record %s: %w", kind, d.AuditErr))
	}
	if op.g.OnDecision != nil {
		op.g.OnDecision(d)
	}
	return d
}
