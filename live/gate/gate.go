package gate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"cockpit/live"
	"cockpit/live/counter"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// PriceSource is the market-data fallback for valuing an order when the broker has no quote.
type PriceSource interface {
	LastPrice(ctx context.Context, symbol string, class live.AssetClass) (*money.Amount, error)
}

// Gate is the one path every order takes. It is safe for concurrent use; the per-broker
// submit lock (a flock) serialises forwards across goroutines and processes.
type Gate struct {
	Root    live.Root
	Now     func() time.Time
	Audit   live.AuditSink
	Journal live.Journal
	Floors  live.FloorProvider
	Prices  PriceSource
	// Mandates is the ledger of committed mandate hashes: the file must be the last commit
	// (DV13). Nil verifies nothing, so every order is denied mandate_unverified.
	Mandates live.MandateLedger
	// NewClientOrderID makes idempotency keys; nil uses RandomID("ck").
	NewClientOrderID func() string
	// OnDecision, when set, sees every decision after it is audited (the engine's event stream).
	OnDecision func(Decision)
	// CountOpenOrders adds resting orders to the book the limits are checked against (worst
	// direction per symbol), so orders that each fit a cap cannot together exceed it. The
	// reference counts positions only; cockpit's runtime turns this on.
	CountOpenOrders bool
	// Latch is the process's one halt latch (the watcher's and the audit's, halt.Latch): set,
	// it halts like a HALT file. Nil: the gate makes its own.
	Latch *halt.Latch
	// WatcherReady, when set, is closed once the halt watcher has proven it sees changes (or
	// has set Latch): until then every order is DENY halted, whoever sends it.
	WatcherReady <-chan struct{}
	// StoreChecked, when set, is closed once the store's start-up check of its pages has
	// finished (one that failed has set the latch first). An order waits for it before its
	// turn, at most StoreWait (0: DefaultStoreWait) or until its context ends, then is DENY
	// halted.
	StoreChecked <-chan struct{}
	StoreWait    time.Duration
	// OnHalt, when set, is told once when the in-memory halt latch trips (audit_unavailable).
	OnHalt func(AuditHalt)
	// Days, when set, is the fleet's shared day count: a slot is reserved before the check
	// and released when the order is not sent or is rejected (nil: the local count alone).
	Days live.DayReserver
	// LockWait bounds how long an order waits while another order holds the submit lock
	// before it is denied lock_busy. 0 does not wait (the reference's non-blocking lock);
	// otherwise this gate's orders for one broker take turns in arrival order, each running
	// every step after the one before it forwarded (see DefaultLockWait).
	LockWait time.Duration
	// OnLossLimit, when set, is told of a crossed loss limit when the gate trips the broker's
	// HALT for it (and once per broker, day and limit when a HALT was already in place).
	OnLossLimit func(LossHalt)
	// ExpectSentinel, when set, is told the path of a sentinel the gate is about to write (a
	// loss limit's HALT), so the session does not audit it as written from outside.
	ExpectSentinel func(path string)

	latchOnce sync.Once // makes the gate's own latch when Latch is nil
	mu        sync.Mutex
	recent    map[string][]forwarded   // per broker, for the duplicate window and the rate throttle
	turns     map[string]chan struct{} // per broker, the turn of the order submitting (LockWait)
	loss      lossState                // equity mark keepers and reported crossings (gate_loss.go)
}

type forwarded struct {
	at                      time.Time
	symbol, side, qty, px   string
	notional, clientOrderID string
}

// Submission is one order-placing call.
type Submission struct {
	Broker    live.Broker
	BrokerKey string // broker key for the mandate, sentinels and counter; default Broker.Name()
	// Profile, Tool and Args describe a tool-shaped call: the profile extracts the intent from
	// the arguments, which are forwarded verbatim.
	Profile *live.Profile
	Tool    string
	Args    *jsonv.Object
	// Intent and Order describe a typed call (cockpit's own tools).
	Intent *live.OrderIntent
	Order  live.OrderRequest
	Actor  live.Principal
	Reason string // the agent's stated reason (untrusted text), kept in the audit
	// Policy is what the caller checked before the gate (the engine's tool policy: its steps
	// and the autonomy), kept in the record's detail so the order's trail starts with it.
	Policy *jsonv.Object
	// Approval, when set, is a human's one-use grant for this exact order (supervised
	// autonomy): its id is recorded on the decision, and it waives the quantitative breaches
	// it covers (the ones shown, up to the values shown), nothing else.
	Approval *live.Approval
	// DryRun runs every step of the gate up to the forward without side effects: no lock, no
	// fleet slot, no journal, forward, count or audit record. What-ifs run this, never a copy
	// of the steps.
	DryRun bool
	// Drift, on the re-check of an approved order, denies it when the price moved too far.
	Drift *Drift

	lowers bool // a replace that only lowers (set by Gate.Replace alone)
}

// Decision is the gate's answer and what happened at the broker.
type Decision struct {
	Verdict       live.Verdict
	Reason        live.Reason
	Denial        *live.Denial
	Breach        *live.Breach
	Intent        *live.OrderIntent // as valued by the gate
	Order         *live.Order       // the broker's order, when forwarded
	Forwarded     bool
	Outcome       string // accepted, rejected, indeterminate, blocked, paused
	BrokerErr     error
	Count         int // today's count after this decision
	ClientOrderID string
	ApprovalID    string
	Breaches      []*live.Breach // on a pause: every breach, Breach first (see Breaches)
	Checked       []string
	StartedAt     time.Time
	LockedAt      time.Time // when the lock was taken and the halt re-checked
	AuditErr      error
	Read          *Snapshot        // what this run read (the review's one snapshot)
	Loss          *live.LossLimits // the loss limits as this run read them (nil: none set, or not reached)
	DryRun        bool             // a what-if (Submission.DryRun): nothing was audited, reserved or sent
}

// Message is a one-line account of the decision.
func (d Decision) Message() string {
	switch {
	case d.Denial != nil:
		return live.DescribeDenial(d.Denial)
	case d.Breach != nil && d.Verdict != live.Allow:
		return d.Breach.Message()
	case d.BrokerErr != nil:
		return d.BrokerErr.Error()
	}
	return d.Outcome
}

func (g *Gate) now() time.Time {
	if g.Now != nil {
		return g.Now()
	}
	return time.Now()
}

func (g *Gate) clientOrderID() string {
	if g.NewClientOrderID != nil {
		return g.NewClientOrderID()
	}
	return live.RandomID("ck")
}

// run carries one submission through the steps.
type run struct {
	g          *Gate
	s          Submission
	key        string
	m          *live.Mandate
	hash       string // m's verified SHA-256
	intent     live.OrderIntent
	req        live.OrderRequest
	quote      *live.Quote
	book       live.Book
	held       live.Book // positions only, before resting orders
	account    live.Account
	accountErr error           // the account read failed: the loss limits fail closed
	positions  []live.Position // the positions read (nil when unreadable)
	explicit   *money.Amount   // the notional the order itself gave, before valuation
	d          Decision
	slot       string                      // the UTC day of a fleet slot this run holds ("" none)
	give       func(context.Context) error // gives that slot back, when ReserveSlot took it
	deadline   time.Time                   // how long the run may wait for the submit lock (zero: not at all)
	val        valuation                   // how the order's notional was reached (the audit says which)
	mark       *dayMark                    // what other orders change, taken before the reads (rerun.go)
	locked     *dayMark                    // the same, read under the lock: the day count's sources
	again      bool                        // under the lock the mark had moved: run the steps again
	carried    *counter.SubmitLock         // the lock held over from the run before, for the run again
}

// Submit runs the gate for one order: mandate, expiry, halt, intent, valuation, controls,
// reads, then under the non-blocking submit lock the halt again, today's count, CheckMandate,
// and on ALLOW the write-ahead journal, one forward with a client order id, the count (only
// on success) and the outcome. Exactly one audit record is written per call. An approved
// order's run also checks the price against the one its reviewer saw (Drift), after the
// valuation. The decision carries what the run read (Read).
func (g *Gate) Submit(ctx context.Context, s Submission) Decision {
	r := &run{g: g, s: s, d: Decision{StartedAt: g.now(), DryRun: s.DryRun}}
	if s.Approval != nil {
		r.d.ApprovalID = s.Approval.Grant
	}
	r.key = s.BrokerKey
	if r.key == "" && s.Broker != nil {
		r.key = s.Broker.Name()
	}
	d := r.decide(ctx)
	d.Read = r.snapshot()
	if g.OnDecision != nil {
		g.OnDecision(d)
	}
	return d
}

// decide runs the submission's steps up to its one audited decision.
func (r *run) decide(ctx context.Context) Decision {
	key, err := live.NormalizeBroker(r.key)
	if err != nil || r.s.Broker == nil {
		return r.deny(live.NewDenial(live.ReasonInvalidBroker, "broker", r.key))
	}
	r.key = key
	if den := r.g.storeDenial(ctx, r.key); den != nil {
		r.check("halt_flag")
		return r.deny(den)
	}
	release, den := r.waitTurn(ctx)
	if den != nil {
		return r.deny(den)
	}
	defer release()
	return r.submitFresh(ctx)
}

func (r *run) check(step string) { r.d.Checked = append(r.d.Checked, step) }

func (r *run) submit(ctx context.Context) Decision {
	g := r.g
	// 1–2: mandate present, valid and not expired.
	r.check("mandate")
	m, hash, den := gateMandate(ctx, g.Root, g.Mandates, r.key, g.now())
	if den != nil {
		if den.Code == live.ReasonExpired {
			r.check("expiry")
		}
		return r.deny(den)
	}
	r.m, r.hash = m, hash
	r.check("expiry")
	if a := r.s.Approval; a != nil && a.Mandate != hash { // the card's numbers were another mandate's
		r.check("approval_mandate")
		return r.deny(live.NewDenial(live.ReasonMandateChanged, "approval", a.Grant, "reviewed_under", orNone(a.Mandate), "now", hash))
	}
	// 3: trading state (HALT here; REDUCE_ONLY once positions are known).
	r.check("halt_flag")
	if den := g.latchDenial("start"); den != nil { // DV15: the in-memory latch names its reason
		return r.deny(den)
	}
	if den := g.haltDenial(r.key); den != nil {
		return r.deny(den)
	}
	// 4: intent.
	if den := r.extract(); den != nil {
		return r.deny(den)
	}
	if b := live.ShapeBreach(r.m, r.intent); b != nil { // an order of unknown shape is never guessed
		return r.breach(b)
	}
	// 5: value a quantity order from a fresh price; the larger of explicit and implied counts.
	if den := r.value(ctx); den != nil {
		return r.deny(den)
	}
	if den := r.drift(ctx); den != nil {
		return r.deny(den)
	}
	// 6: cockpit controls that need no lock.
	if den := r.controls(ctx); den != nil {
		return r.deny(den)
	}
	// 7: reads. A failed read is data: it fails the checks closed.
	if r.carried == nil && !r.s.DryRun {
		r.mark = g.dayMark(ctx, r.key)
	}
	r.read(ctx)
	r.protective() // a stop that only closes a held position is valued at the position's mark (DV3)
	if den := GateState(g.Root, r.key, r.intent, r.book); den != nil {
		return r.deny(den)
	}
	if den := r.lossLimits(ctx); den != nil { // a crossed limit halts the broker (not on a dry run)
		return r.deny(den)
	}
	// 8: the lock, and everything from the count to the outcome inside it. A dry run takes
	// no lock and goes through every step to the forward, which it does not make.
	r.check("daily_order_lock")
	unlock, den := r.enter(ctx)
	if den != nil {
		return r.deny(den)
	}
	if r.again { // another order went between the reads and the lock: decide on what is there now
		return Decision{}
	}
	defer unlock()
	r.d.LockedAt = g.now()
	if den := g.latchDenial("lock"); den != nil {
		return r.deny(den)
	}
	if den := g.haltDenial(r.key, "at", "lock"); den != nil { // DV5: a trip while we read must stop this order
		return r.deny(den)
	}
	if den := GateState(g.Root, r.key, r.intent, r.book); den != nil {
		return r.deny(den)
	}
	if den := g.throttle(r.key, r.m.Controls, r.req, r.intent, r.d.LockedAt); den != nil {
		return r.deny(den)
	}
	if g.Journal == nil {
		return r.deny(live.NewDenial(live.ReasonJournal, "error", "no journal attached"))
	}
	if r.locked == nil { // a dry run, which takes no lock
		r.locked = g.dayMark(ctx, r.key)
	}
	count, den := r.locked.src.Count(r.key, r.locked.at) // DV14
	if den != nil {
		return r.deny(den)
	}
	if count, den = r.reserve(ctx, count); den != nil { // the fleet's count, one slot taken
		return r.deny(den)
	}
	r.d.Count = count
	if r.s.lowers { // a replace that only lowers an order already let through (see Replace)
		r.check("replace_lowers")
		if b := live.TradesPerDayBreach(r.m.HardCaps, count); b != nil && !r.s.Approval.Covers(b) {
			return r.breach(b) // it is still one more order for the day
		}
		return r.forward(ctx)
	}
	r.check("mandate_limits")
	req := live.CheckRequest{Mandate: r.m, Intent: r.intent, Book: r.book, DailyCount: count, Floors: g.Floors}
	// A grant waives only the breaches it was shown: the rest of the mandate still runs.
	b := live.CheckMandate(ctx, req)
	for b != nil && r.s.Approval.Covers(b) {
		req.Waived = append(req.Waived, b.Limit)
		b = live.CheckMandate(ctx, req)
	}
	if b != nil {
		if b.Kind == live.KindQuantitative {
			r.d.Breaches = live.Breaches(ctx, req) // a review shows them all
		}
		return r.breach(b)
	}
	return r.forward(ctx)
}

// enter takes the submit lock of step 8 and returns its release. A dry run takes none: it
// decides on what it read, and neither waits for nor blocks a real order.
func (r *run) enter(ctx context.Context) (func(), *live.Denial) {
	if r.s.DryRun {
		return func() {}, nil
	}
	lock, den := r.lock(ctx)
	if den != nil {
		return nil, den
	}
	return func() { lock.Unlock() }, nil
}

// dryRun ends a dry run where the forward would be, or with the decision it reached: nothing
// is journaled, sent, counted or audited, and the valued intent is on the decision.
func (r *run) dryRun(verdict live.Verdict, outcome string) Decision {
	if r.intent.Symbol != "" || r.intent.Side != "" {
		in := r.intent
		r.d.Intent = &in
	}
	r.d.Verdict, r.d.Outcome = verdict, outcome
	return r.d
}

// extract derives the intent and the request to forward.
func (r *run) extract() *live.Denial {
	r.check("intent")
	s := r.s
	switch {
	case s.Profile != nil:
		in, ok := s.Profile.Extract(s.Tool, s.Args)
		if !ok {
			return live.NewDenial(live.ReasonNoIntent, "tool", s.Tool)
		}
		r.intent = in
		r.req = live.OrderRequest{Symbol: in.NormalizedSymbol(), Side: in.Side, Type: live.Market,
			Quantity: in.Quantity, Notional: in.NotionalUSD, Instrument: in.InstrumentType, Legs: in.Legs, Tool: s.Tool, Args: s.Args}
		if in.Type.Triggered() { // the journal and the book know the trigger (the arguments are what is sent)
			r.req.Type, r.req.StopPrice, r.req.TrailAmount, r.req.TrailPercent = in.Type, in.StopPrice, in.TrailAmount, in.TrailPercent
		}
	case s.Intent != nil:
		r.intent = *s.Intent
		r.req = s.Order
		r.req.Symbol, r.req.Side = r.intent.NormalizedSymbol(), r.intent.Side
		if r.req.Type == "" && r.intent.Type != "" { // an intent that names its type and prices
			r.req.Type, r.req.LimitPrice, r.req.StopPrice = r.intent.Type, r.intent.LimitPrice, r.intent.StopPrice
			r.req.TrailAmount, r.req.TrailPercent = r.intent.TrailAmount, r.intent.TrailPercent
		}
		if r.req.Type == "" {
			r.req.Type = live.Market
		}
		if r.req.Type.Triggered() { // a trigger the gate cannot value is never guessed
			if err := live.CheckOrderPrices(r.req.Type, r.req.Prices()); err != nil {
				return live.NewDenial(live.ReasonNoIntent, "tool", s.Tool, "error", err.Error())
			}
		}
		if r.req.Quantity == nil && r.req.Notional == nil {
			r.req.Quantity, r.req.Notional = r.intent.Quantity, r.intent.NotionalUSD
		}
	default:
		return live.NewDenial(live.ReasonNoIntent, "tool", s.Tool)
	}
	return nil
}

// value prices a quantity order (step 5): a sizing broker is authoritative; otherwise the
// broker's quote, then the market-data source; no price denies.
func (r *run) value(ctx context.Context) *live.Denial {
	in := &r.intent
	r.explicit = in.NotionalUSD
	if in.Quantity == nil {
		return nil
	}
	r.check("quote")
	var implied money.Amount
	if len(in.Legs) > 0 { // a multi-leg order: each leg at its own quote
		n, den := r.valueLegs(ctx)
		if den != nil {
			return den
		}
		implied = n
		r.val.basis = basisLegs
	} else if sz, ok := r.s.Broker.(live.Sizer); ok {
		n, err := sz.NotionalFor(ctx, in.NormalizedSymbol(), *in.Quantity)
		if err != nil || n.Sign() <= 0 {
			return live.NewDenial(live.ReasonNoQuote, "symbol", in.NormalizedSymbol(), "error", errText(err, "sizing returned no notional"))
		}
		implied = n
		r.val.basis = basisSizing
	} else {
		price, den := r.price(ctx)
		if den != nil {
			return den
		}
		implied = live.ImpliedNotional(*in, price) // × 100 for an option contract
		r.val.priced(r, price)
	}
	if in.NotionalUSD == nil || implied.GreaterThan(*in.NotionalUSD) {
		in.NotionalUSD = &implied
	} else {
		r.val.basis = basisExplicit
	}
	return nil
}

// price returns the valuation price of the intent: a fresh broker quote, else the market-data
// source for the intent's bucket (DV2: the order's own asset class is kept).
func (r *run) price(ctx context.Context) (money.Amount, *live.Denial) {
	in := r.intent
	sym := in.NormalizedSymbol()
	if q, ok := r.freshQuote(ctx); ok {
		p := q.ValuationPrice(in.Side)
		if in.LimitPrice != nil && in.Side == live.Buy {
			p = money.Max(p, *in.LimitPrice)
		}
		if p.Sign() > 0 {
			return r.atTrigger(p), nil
		}
	}
	if r.g.Prices != nil {
		if p, err := r.g.Prices.LastPrice(ctx, sym, in.Bucket()); err == nil && p != nil && p.Sign() > 0 {
			return r.atTrigger(*p), nil
		}
	}
	return money.Zero, live.NewDenial(live.ReasonNoQuote, "symbol", sym, "error", "quantity order notional could not be priced (fail-closed)")
}

// freshQuote asks the broker once per submission; a quote older than max_quote_age_ms is no
// quote.
func (r *run) freshQuote(ctx context.Context) (live.Quote, bool) {
	if r.quote != nil {
		return *r.quote, r.quote.Last.Sign() > 0 || r.quote.Ask.Sign() > 0 || r.quote.Bid.Sign() > 0
	}
	q, err := r.s.Broker.Quote(ctx, r.intent.NormalizedSymbol())
	if err != nil {
		r.quote = &live.Quote{}
		return live.Quote{}, false
	}
	if age := r.m.Controls.MaxQuoteAgeMs; age != nil && !q.Time.IsZero() {
		if r.g.now().Sub(q.Time) > time.Duration(*age)*time.Millisecond {
			r.quote = &live.Quote{}
			return live.Quote{}, false
		}
	}
	r.quote = &q
	return q, true
}

// read takes positions and balance; failures are data, not errors.
func (r *run) read(ctx context.Context) {
	pos, err := r.s.Broker.Positions(ctx)
	if err != nil {
		r.book = live.UnreadableBook(err)
	} else {
		r.positions = pos
		rows := make([]live.Exposure, len(pos))
		for i, p := range pos {
			rows[i] = live.Exposure{Symbol: p.Symbol, Net: p.MarketValue}
		}
		r.book = live.BookFromExposures(rows)
	}
	r.held = r.book
	if r.g.CountOpenOrders && r.book.Err == nil {
		orders, err := r.s.Broker.OpenOrders(ctx)
		orders = live.WithoutOrder(orders, r.req.Replaces) // a replace swaps the old order out
		if err != nil {
			r.book = live.UnreadableBook(fmt.Errorf("open orders unreadable: %w", err))
		} else {
			r.book = r.book.WithOpenOrders(orders, func(sym string) (money.Amount, error) {
				q, err := r.s.Broker.Quote(ctx, sym)
				if err != nil {
					return money.Zero, err
				}
				if p := q.ValuationPrice(live.Buy); p.Sign() > 0 {
					return p, nil
				}
				return money.Zero, fmt.Errorf("no price for %s", sym)
			})
		}
	}
	// The balance is not a mandate limit input (reference E12); its equity is the loss limits'.
	r.account, r.accountErr = r.s.Broker.Account(ctx)
}

func orNone(s string) string {
	if s == "" {
		return "none recorded"
	}
	return s
}

func errText(err error, fallback string) string {
	if err != nil {
		return err.Error()
	}
	return fallback
}

// forward writes the journal, sends the order once and classifies the outcome.
func (r *run) forward(ctx context.Context) Decision {
	g := r.g
	if r.s.DryRun { // everything before the forward ran: this is where a dry run stops
		return r.dryRun(live.Allow, "dry_run")
	}
	r.d.Verdict = live.Allow
	r.req.ClientOrderID = g.clientOrderID()
	r.d.ClientOrderID = r.req.ClientOrderID
	entry := live.JournalEntry{ClientOrderID: r.req.ClientOrderID, Broker: r.key, Actor: r.s.Actor, Request: r.req, Created: g.now()}
	if g.Journal == nil {
		return r.deny(live.NewDenial(live.ReasonJournal, "error", "no journal attached"))
	}
	if err := ctx.Err(); err != nil { // the caller gave up: nothing is sent
		return r.deny(live.NewDenial(live.ReasonCancelled, "error", err.Error()))
	}
	if d := g.writeAhead(ctx, entry); d != nil { // DV15: no record, no trade
		return r.deny(d)
	}
	g.remember(r.key, r.req, r.intent, r.req.ClientOrderID, g.now())
	r.d.Forwarded = true
	order, err := r.s.Broker.PlaceOrder(ctx, r.req)
	if err != nil && errors.Is(err, live.ErrIndeterminate) {
		order, err = r.reconcile(ctx, err)
	}
	r.d.BrokerErr = err
	switch {
	case err == nil:
		r.d.Order, r.d.Outcome = &order, live.OutcomeAccepted
		r.count()
		detail := ""
		if order.Children > 0 { // the journal counts them too: it is the day count's truth (DV14)
			detail = fmt.Sprintf(`{"children":%d}`, order.Children)
		}
		return r.settle(ctx, live.JournalAccepted, order.ID, detail, live.KindOrderPlaced, live.OutcomeAccepted, "", order.Reply)
	case errors.Is(err, live.ErrIndeterminate):
		// Only a confirmed success consumes a count; the journal keeps the order indeterminate
		// so reconciliation (at start-up, or by an operator) settles it.
		r.d.Outcome, r.d.Reason = live.OutcomeIndeterminate, live.ReasonIndeterminate
		return r.settle(ctx, live.JournalIndeterminate, "", err.Error(), live.KindOrderRejected, live.OutcomeIndeterminate, err.Error(), nil)
	default:
		r.release(ctx)
		r.d.Outcome, r.d.Reason = live.OutcomeRejected, live.ReasonBrokerReject
		if order.Reply != nil {
			r.d.Order = &order
		}
		return r.settle(ctx, live.JournalRejected, "", err.Error(), live.KindOrderRejected, live.OutcomeError, brokerMessage(err), order.Reply)
	}
}

// gaveUp reports an error that is only the caller's context ending (it cancelled, or its
// deadline passed): a refusal, not a store failure that should latch the halt.
func gaveUp(ctx context.Context, err error) bool {
	return ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}

// reconcile resolves an indeterminate forward through the client order id; it never resends.
func (r *run) reconcile(ctx context.Context, cause error) (live.Order, error) {
	o, err := r.s.Broker.OrderByClientID(ctx, r.req.ClientOrderID)
	switch {
	case err == nil:
		return o, nil
	case errors.Is(err, live.ErrOrderNotFound):
		return live.Order{}, &live.BrokerError{Class: live.ErrRejected, Msg: "the broker never received the order (" + cause.Error() + ")"}
	}
	return live.Order{}, cause
}

func brokerMessage(err error) string {
	var be *live.BrokerError
	if errors.As(err, &be) && be.Msg != "" {
		return be.Msg
	}
	return err.Error()
}

// count records the forward: today's count as the gate read it under the lock, plus one, so
// the counter file catches up with the journal (DV14). It is written for the day the count
// was read on: an acceptance that arrives after midnight UTC must not carry the old day's
// count into the new one.
func (r *run) count() {
	n := r.d.Count + 1
	if r.d.Order != nil && r.d.Order.Children > 0 { // orders the broker created with it (a bracket's legs)
		n += r.d.Order.Children
		r.reserveChildren(r.d.Order.Children) // the fleet counts them too
	}
	if err := counter.NoteDailyCount(r.g.Root, r.key, r.d.LockedAt, n); err == nil {
		r.d.Count = n
	}
}

func (r *run) finish(ctx context.Context, state live.JournalState, orderID, detail string) {
	if err := r.g.Journal.Finish(context.WithoutCancel(ctx), r.req.ClientOrderID, state, orderID, detail, r.g.now()); err != nil && r.d.AuditErr == nil {
		r.d.AuditErr = fmt.Errorf("journal outcome: %w", err)
		r.g.TripAuditHalt(r.d.AuditErr)
	}
}

// deny ends the run with a refusal before any forward.
func (r *run) deny(den *live.Denial) Decision {
	r.d.Denial, r.d.Reason = den, den.Code
	r.release(context.Background())
	if r.s.DryRun {
		return r.dryRun(live.Deny, live.OutcomeBlocked)
	}
	r.d.Verdict, r.d.Outcome = live.Deny, live.OutcomeBlocked
	return r.record(context.Background(), live.KindOrderRejected, live.OutcomeBlocked, den.Error(), nil)
}

// breach ends the run with a mandate breach: structural and data breaches are denied;
// quantitative ones wait for a human.
func (r *run) breach(b *live.Breach) Decision {
	r.d.Verdict, r.d.Breach, r.d.Reason = b.Verdict(), b, live.Reason(b.Limit)
	r.d.Outcome = live.OutcomeBlocked
	r.release(context.Background())
	if r.s.DryRun {
		return r.dryRun(b.Verdict(), live.OutcomeBlocked)
	}
	return r.record(context.Background(), live.KindBreach, r.d.Outcome, b.Message(), nil)
}

// record writes the one audit record of this submission.
func (r *run) record(ctx context.Context, kind, outcome, errText string, response any) Decision {
	rec := r.auditRecord(kind, outcome, errText, response)
	if r.g.Audit == nil {
		r.d.AuditErr = errors.New("no audit sink attached")
	} else if err := r.g.Audit.Record(context.WithoutCancel(ctx), rec); err != nil {
		r.d.AuditErr = err
	}
	return r.audited(kind)
}

// auditRecord is the audit record of this submission.
func (r *run) auditRecord(kind, outcome, errText string, response any) live.AuditRecord {
	g := r.g
	if r.intent.Symbol != "" || r.intent.Side != "" {
		in := r.intent
		r.d.Intent = &in
	}
	rec := live.AuditRecord{
		Time: g.now(), Actor: r.s.Actor, Kind: kind, Outcome: outcome, Reason: r.d.Reason,
		Broker: r.key, Tool: r.toolName(), ClientOrderID: r.d.ClientOrderID, ApprovalID: r.d.ApprovalID,
		Request: r.requestPayload(), Response: response, Error: errText, Decision: r.gateDecision(),
	}
	if r.d.Order != nil {
		rec.OrderID = r.d.Order.ID
	}
	if r.d.Intent != nil {
		rec.Intent, rec.Notional = r.d.Intent.Describe(), r.d.Intent.NotionalUSD
	}
	if r.m != nil {
		rec.MandateRef, rec.ConsentRef = r.m.Consent.ConsentTokenSHA256, r.m.Consent.AccountRef
	}
	detail := jsonv.NewObject()
	if r.s.Reason != "" {
		detail.Set("agent_reason", r.s.Reason)
	}
	if r.s.Policy != nil {
		detail.Set("policy", r.s.Policy)
	}
	if rec.Notional != nil {
		r.val.describe(detail)
	}
	if detail.Len() > 0 {
		rec.Detail = detail
	}
	return rec
}

// audited ends the run once its record is written: a failed record (or journal outcome) trips
// the halt latch.
func (r *run) audited(kind string) Decision {
	g := r.g
	if r.d.AuditErr != nil { // the order, if it went, is flagged by AuditErr; nothing else goes
		if r.d.Forwarded {
			g.TripAuditHalt(fmt.Errorf("order %s was SENT but its audit record %s failed: %w", r.d.ClientOrderID, kind, r.d.AuditErr))
		} else {
			g.TripAuditHalt(fmt.Errorf("audit record %s: %w", kind, r.d.AuditErr))
		}
	}
	return r.d
}

func (r *run) toolName() string {
	if r.s.Tool != "" {
		return r.s.Tool
	}
	return "place_order"
}

func (r *run) requestPayload() any {
	if r.s.Args != nil {
		return r.s.Args
	}
	if r.s.Intent == nil {
		return nil
	}
	return r.req
}

func (r *run) gateDecision() *live.GateDecision {
	gd := &live.GateDecision{Allowed: r.d.Verdict == live.Allow, Checked: append([]string(nil), r.d.Checked...),
		Approved: r.d.ApprovalID}
	gd.Decision = r.d.Verdict.Decision()
	if b := r.d.Breach; b != nil {
		gd.Limit, gd.Kind = b.Limit, string(b.Kind)
		lv, at := b.LimitValue, b.Attempted
		gd.LimitValue, gd.Attempted = &lv, &at
	}
	return gd
}
