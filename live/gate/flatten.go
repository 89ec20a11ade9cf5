package gate

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/mandatefile"
	"cockpit/live/money"
)

// FlattenPhase names a step of the halt action.
type FlattenPhase string

// Flatten phases, in order.
const (
	PhaseReadOrders    FlattenPhase = "read_open_orders"
	PhaseCancel        FlattenPhase = "cancel"
	PhaseReadPositions FlattenPhase = "read_positions"
	PhaseClose         FlattenPhase = "close"
	PhaseVerify        FlattenPhase = "verify"
	PhaseDone          FlattenPhase = "done"
)

// FlattenProgress is one step of a running flatten, for the screen.
type FlattenProgress struct {
	Phase FlattenPhase
	Item  string // order id or symbol
	OK    bool
	Err   string
	Done  int
	Total int
	Time  time.Time
}

// FlattenError is a step that failed; it is never retried automatically.
type FlattenError struct {
	Phase FlattenPhase
	Item  string
	Err   string
}

// CloseResult is one reduce-only close.
type CloseResult struct {
	Symbol  string
	Side    string
	Qty     money.Amount
	OrderID string
	Err     string
}

// FlattenOptions say what the halt action does.
type FlattenOptions struct {
	ClosePositions bool // close every position reduce-only (mandate flatten_on_halt, or the operator)
	Actor          live.Principal
	Why            string
	Progress       func(FlattenProgress)
	// Settle bounds how long verification waits for in-flight cancels and closes to show at
	// the broker (default 3 s); it polls, it never resends.
	Settle time.Duration
}

// FlattenReport is what a flatten did and what the broker says afterwards.
type FlattenReport struct {
	Broker        string
	Started       time.Time
	Finished      time.Time
	Cancelled     []string
	Closes        []CloseResult
	SkippedReason string // why positions were not closed
	Errors        []FlattenError
	Verified      bool      // the broker was re-read after the actions
	VerifiedAt    time.Time // when
	VerifyErr     string
	Unidentified  []string        // open orders with no readable id: never cancelled (DV16)
	OpenOrders    []live.Order    // still resting after the re-read
	Positions     []live.Position // still open after the re-read
}

// Flat reports a verified account with no resting orders and no positions, where no open
// order had to be left alone for want of an id (DV16).
func (r FlattenReport) Flat() bool {
	return r.Verified && len(r.OpenOrders) == 0 && len(r.Positions) == 0 && len(r.Unidentified) == 0
}

// errNoQuantity is the flatten error for a position the broker gave a value and no quantity
// for: no close is sent (its size is unknown) and the result is NOT FLAT.
const errNoQuantity = "the broker gave this position a value and no quantity: no close was sent; close it at the broker"

// errUnidentified is the flatten error for an open order whose id cannot be read (DV16).
const errUnidentified = "open order has no readable id: no cancel was sent; cancel it at the broker"

// unidentifiedItem names an open order that has no id by what the broker did say about it.
func unidentifiedItem(o live.Order) string {
	parts := []string{"(no id)"}
	for _, p := range []string{o.Symbol, o.Side, o.ClientOrderID} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " ")
}

// Complete reports a verified flatten that did everything it was asked without an error: no
// resting orders, and no positions unless closing them was not asked (a cancel-only halt).
func (r FlattenReport) Complete() bool {
	return r.Verified && len(r.Errors) == 0 && len(r.OpenOrders) == 0 &&
		(len(r.Positions) == 0 || r.SkippedReason != "")
}

// Summary is the result line: "FLAT (verified 15:04:05 UTC)", "ORDERS CLEARED (verified …);
// N positions kept …" for a cancel-only halt, or "NOT FLAT: …" naming what is stranded. It
// never says flat or cleared without the re-read.
func (r FlattenReport) Summary() string {
	if !r.Verified {
		return "NOT FLAT: could not verify with the broker: " + r.VerifyErr
	}
	verified := "(verified " + r.VerifiedAt.UTC().Format("15:04:05") + " UTC)"
	if r.Flat() {
		return "FLAT " + verified
	}
	if r.Complete() {
		return "ORDERS CLEARED " + verified + "; " + r.positionsText()
	}
	var parts []string
	if n := len(r.Unidentified); n > 0 {
		parts = append(parts, fmt.Sprintf("%d open order%s without a readable id, not cancelled (%s)", n, plural(n), strings.Join(r.Unidentified, ", ")))
	}
	if n := len(r.OpenOrders); n > 0 {
		ids := make([]string, n)
		for i, o := range r.OpenOrders {
			ids[i] = o.ID
		}
		parts = append(parts, fmt.Sprintf("%d order%s still resting (%s)", n, plural(n), strings.Join(ids, ", ")))
	}
	if len(r.Positions) > 0 {
		parts = append(parts, r.positionsText())
	}
	return "NOT FLAT: " + strings.Join(parts, "; ")
}

func (r FlattenReport) positionsText() string {
	n := len(r.Positions)
	ps := make([]string, n)
	for i, p := range r.Positions {
		ps[i] = fmt.Sprintf("%s %s", p.Symbol, signed(p.Qty))
		if p.QtyUnknown {
			ps[i] = fmt.Sprintf("%s value %s, quantity unknown", p.Symbol, signed(p.MarketValue))
		}
	}
	s := fmt.Sprintf("%d position%s open (%s)", n, plural(n), strings.Join(ps, ", "))
	if r.SkippedReason != "" {
		s += " — " + r.SkippedReason
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func signed(a money.Amount) string {
	if a.Sign() > 0 {
		return "+" + a.String()
	}
	return a.String()
}

// FlattenAllowed decides whether a halt closes positions: the explicit choice (the operator
// asked), else the mandate's flatten_on_halt, else no (cancel-only).
func FlattenAllowed(explicit *bool, m *live.Mandate) bool {
	switch {
	case explicit != nil:
		return *explicit
	case m != nil:
		return m.FlattenOnHalt
	}
	return false
}

// HaltAction is the standard halt action for a watcher: flatten b, closing positions when the
// broker's mandate says flatten_on_halt (a missing, unreadable or unverified mandate means
// cancel-only: an edited flatten_on_halt was not consented to).
func HaltAction(g *Gate, b live.Broker, progress func(FlattenProgress)) func(ctx context.Context, broker string) FlattenReport {
	return func(ctx context.Context, broker string) FlattenReport {
		m := mandatefile.Verified(ctx, g.Root, g.Mandates, broker)
		return g.Flatten(ctx, b, broker, FlattenOptions{ClosePositions: FlattenAllowed(nil, m),
			Actor: live.System("halt-watcher", ""), Why: "HALT sentinel", Progress: progress})
	}
}

// Flatten is the halt action: cancel every resting order (each audited, never retried), then,
// when asked, close every position with a reduce-only market order through the operator path,
// then re-read the broker and report. Broker error replies are failures. It does not check the
// sentinels: it is what a halt runs.
func (g *Gate) Flatten(ctx context.Context, b live.Broker, brokerKey string, opts FlattenOptions) FlattenReport {
	if brokerKey == "" {
		brokerKey = b.Name()
	}
	rep := FlattenReport{Broker: brokerKey, Started: g.now()}
	progress := func(p FlattenProgress) {
		p.Time = g.now()
		if opts.Progress != nil {
			opts.Progress(p)
		}
	}
	orders, err := b.OpenOrders(ctx)
	if err != nil {
		rep.Errors = append(rep.Errors, FlattenError{Phase: PhaseReadOrders, Err: err.Error()})
		progress(FlattenProgress{Phase: PhaseReadOrders, Err: err.Error()})
	}
	g.cancelAll(ctx, b, brokerKey, orders, opts, &rep, progress)
	lock := g.flattenLock(ctx, brokerKey)
	if lock != nil {
		g.cancelLate(ctx, b, brokerKey, orders, opts, &rep, progress)
	}
	if opts.ClosePositions {
		g.closeAll(ctx, b, brokerKey, lock != nil, opts, &rep, progress)
	} else {
		rep.SkippedReason = "positions kept: the mandate says cancel-only on halt"
	}
	if lock != nil {
		lock.Unlock()
	}
	g.verify(ctx, b, opts, &rep)
	rep.Finished = g.now()
	progress(FlattenProgress{Phase: PhaseDone, OK: rep.Flat(), Item: rep.Summary()})
	g.auditFlatten(ctx, brokerKey, opts, rep)
	return rep
}

func (g *Gate) closeAll(ctx context.Context, b live.Broker, key string, locked bool, opts FlattenOptions, rep *FlattenReport, progress func(FlattenProgress)) {
	positions, err := b.Positions(ctx)
	if err != nil {
		rep.Errors = append(rep.Errors, FlattenError{Phase: PhaseReadPositions, Err: err.Error()})
		progress(FlattenProgress{Phase: PhaseReadPositions, Err: err.Error()})
		return
	}
	var open []live.Position
	for _, p := range positions {
		switch {
		case p.QtyUnknown && p.Open(): // valued, but no size to close: stranded, said so
			rep.Errors = append(rep.Errors, FlattenError{Phase: PhaseClose, Item: p.Symbol, Err: errNoQuantity})
			progress(FlattenProgress{Phase: PhaseClose, Item: p.Symbol, Err: errNoQuantity})
		case p.Qty.Sign() != 0:
			open = append(open, p)
		}
	}
	for i, p := range open {
		side := live.Sell
		if p.Qty.Sign() < 0 {
			side = live.Buy
		}
		d := g.SubmitReducing(ctx, ReduceRequest{Broker: b, BrokerKey: key, Symbol: p.Symbol, Side: side,
			Quantity: p.Qty.Abs(), Actor: opts.Actor, Why: opts.Why, lockHeld: locked})
		res := CloseResult{Symbol: p.Symbol, Side: side, Qty: p.Qty.Abs()}
		var fail error
		switch {
		case d.Denial != nil:
			fail = d.Denial
		case d.BrokerErr != nil:
			fail = d.BrokerErr
		}
		if d.Order != nil {
			res.OrderID = d.Order.ID
		}
		if fail != nil {
			res.Err = fail.Error()
			rep.Errors = append(rep.Errors, FlattenError{Phase: PhaseClose, Item: p.Symbol, Err: fail.Error()})
		}
		rep.Closes = append(rep.Closes, res)
		progress(FlattenProgress{Phase: PhaseClose, Item: p.Symbol, OK: fail == nil, Err: res.Err, Done: i + 1, Total: len(open)})
	}
}

// verify re-reads open orders and positions until both are empty or the settle time passes.
func (g *Gate) verify(ctx context.Context, b live.Broker, opts FlattenOptions, rep *FlattenReport) {
	settle := opts.Settle
	if settle <= 0 {
		settle = 3 * time.Second
	}
	deadline := time.Now().Add(settle)
	for {
		orders, oerr := b.OpenOrders(ctx)
		positions, perr := b.Positions(ctx)
		if oerr != nil || perr != nil {
			rep.Verified = false
			rep.VerifyErr = errText(oerr, "") + errText(perr, "")
		} else {
			rep.Verified, rep.VerifyErr, rep.VerifiedAt = true, "", g.now()
			rep.OpenOrders = orders
			rep.Positions = rep.Positions[:0]
			for _, p := range positions {
				if p.Open() {
					rep.Positions = append(rep.Positions, p)
				}
			}
			sort.Slice(rep.Positions, func(i, j int) bool { return rep.Positions[i].Symbol < rep.Positions[j].Symbol })
			done := len(orders) == 0 && (!opts.ClosePositions || onlyUnsized(rep.Positions))
			if done {
				return
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// onlyUnsized reports whether every position left is one no close was sent for (its quantity
// is unknown): waiting longer cannot change them. True for none left.
func onlyUnsized(ps []live.Position) bool {
	for _, p := range ps {
		if !p.QtyUnknown {
			return false
		}
	}
	return true
}

func (g *Gate) auditFlatten(ctx context.Context, key string, opts FlattenOptions, rep FlattenReport) {
	if g.Audit == nil {
		return
	}
	outcome := live.OutcomeAccepted
	if !rep.Complete() {
		outcome = live.OutcomeError
	}
	errs := make([]any, len(rep.Errors))
	for i, e := range rep.Errors {
		errs[i] = jsonv.ObjectOf("phase", string(e.Phase), "item", e.Item, "error", e.Err)
	}
	cancelled := make([]any, len(rep.Cancelled))
	for i, id := range rep.Cancelled {
		cancelled[i] = id
	}
	detail := jsonv.ObjectOf("summary", rep.Summary(), "close_positions", opts.ClosePositions,
		"cancelled", cancelled, "closes", len(rep.Closes), "errors", errs, "why", opts.Why)
	if err := g.Audit.Record(context.WithoutCancel(ctx), live.AuditRecord{Time: g.now(), Actor: opts.Actor, Kind: live.KindFlatten, Outcome: outcome,
		Broker: key, Tool: "flatten", Intent: rep.Summary(), Detail: detail}); err != nil {
		g.TripAuditHalt(fmt.Errorf("audit record %s: %w", live.KindFlatten, err)) // DV15
	}
}
