package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"cockpit/engine"
	"cockpit/live"
	"cockpit/live/counter"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
	"cockpit/live/mandatefile"
	"cockpit/live/money"
	"cockpit/store"
	"cockpit/tui"
)

// Backend is the screen's view of a running session (tui.Backend): it reads the broker, the
// sentinels, the mandate and the store, and carries out the operator's actions, each audited
// as the operator's.
type Backend struct {
	s        *Session
	operator live.Principal

	mu      sync.Mutex
	tail    []tui.AuditRow // the audit tail as of tailSeq
	tailSeq int64
	largest money.Amount      // the largest order accepted today
	last    money.Amount      // the last order accepted today
	breach  int               // orders accepted today on an approved breach
	day     string            // the UTC day largest belongs to
	origins map[string]string // client order id → who placed it
	start   *money.Amount     // the equity at the first account read of the session
	trails  trailCache        // open orders' decision trails (trail.go)
	mandate mandateSeen       // the last mandate check and what it read (mandate_cache.go)
}

var _ tui.Backend = (*Backend)(nil)

// Backend returns the screen's backend over this session, made on first use: its actions
// are audited as the operator's ("tui:<user>").
func (s *Session) Backend() *Backend {
	s.backendOnce.Do(func() { s.backend = newBackend(s) })
	return s.backend
}

func newBackend(s *Session) *Backend {
	b := &Backend{s: s, operator: live.Operator(strings.Replace(OperatorName(), "cli", "tui", 1), s.id), origins: map[string]string{}}
	b.scanLargest(context.Background())
	return b
}

// scanLargest seeds today's largest accepted order from the store's typed notional column.
func (b *Backend) scanLargest(ctx context.Context) {
	now := b.s.rt.Now().UTC()
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	largest, err := b.s.rt.DB.LargestNotional(ctx, b.s.key, day)
	if err != nil {
		largest = money.Zero
	}
	b.mu.Lock()
	b.largest, b.day = largest, day.Format("2006-01-02")
	b.mu.Unlock()
}

// noteDecision keeps the largest accepted order of the day current from engine events.
func (b *Backend) noteDecision(d *gate.Decision) {
	if d == nil || d.Verdict != live.Allow || d.Outcome != live.OutcomeAccepted || d.Intent == nil || d.Intent.NotionalUSD == nil {
		return
	}
	today := b.s.rt.Now().UTC().Format("2006-01-02")
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.day != today {
		b.largest, b.last, b.breach, b.day = money.Zero, money.Zero, 0, today
	}
	b.last = *d.Intent.NotionalUSD
	if d.ApprovalID != "" {
		b.breach++
	}
	if d.Intent.NotionalUSD.GreaterThan(b.largest) {
		b.largest = *d.Intent.NotionalUSD
	}
}

// Snapshot implements tui.Backend.
func (b *Backend) Snapshot(ctx context.Context) tui.Snapshot {
	s, rt := b.s, b.s.rt
	now := rt.Now()
	snap := tui.Snapshot{Taken: now, Broker: s.key, Live: rt.IsLive(s.key), Paused: s.eng.Paused(),
		HaltFile: rt.Root.SentinelPath(live.HaltSentinel, s.key), HaltFileOK: true, Quotes: map[string]live.Quote{}}
	if s.agent != nil {
		snap.Agent = s.agent.Name()
		if st, ok := s.agent.(interface{ Status() string }); ok {
			snap.Agent = st.Status() // a plugin: its grants and usage, or why it is disabled
		}
	}
	snap.State = halt.StateOf(rt.Root, s.key)
	snap.Warnings = SentinelWarnings(rt.Root)
	snap.Blocked = s.eng.Blocked()
	snap.Fleet = s.fleet.view(ctx, now)
	if on, why := s.latch.Halted(); on {
		snap.State, snap.HaltReason = live.Halted, why
	}
	for _, scope := range []live.Scope{live.GlobalScope, {Broker: s.key}} {
		if _, err := os.Stat(rt.Root.SentinelPath(live.HaltSentinel, scope.Broker)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			snap.HaltFileOK = false
		}
		if a, err := halt.ReadSentinel(rt.Root, live.HaltSentinel, scope); err == nil && a != nil && snap.HaltReason == "" {
			snap.HaltReason = haltLine(a, scope)
		}
	}
	if h, ok := s.gate.Latched(); ok { // DV15: the in-memory latch, whatever the disk says
		snap.State, snap.Paused, snap.HaltReason = live.Halted, true, string(h.Reason)+": "+h.Detail
	}
	// The gate trusts only the mandate last committed (DV13): one it will not use is shown as
	// a critical error, not as limits.
	if mc := b.mandateCheck(ctx); !mc.Verified() {
		snap.MandateState = mc.State
		if mc.State != live.MandateMissing {
			snap.MandateErr = mc.Describe()
		}
	} else {
		m := mc.Mandate
		snap.Mandate, snap.MandateState = m, mc.State
		snap.Expires, _ = m.Expiry()
		snap.Committed, _ = live.ParseExpiry(m.Consent.CreatedAt)
	}
	snap.OrdersToday, _ = counter.DailyCount(ctx, rt.Root, rt.DB, s.key, now) // the gate's count (DV14)
	b.mu.Lock()
	snap.LargestOrder, snap.LastOrder, snap.Breaches = b.largest, b.last, b.breach
	if b.day != now.UTC().Format("2006-01-02") {
		snap.LargestOrder, snap.LastOrder, snap.Breaches = money.Zero, money.Zero, 0
	}
	b.mu.Unlock()
	snap.PauseTill, snap.PauseWhy = s.eng.CoolingDown()
	b.readBroker(ctx, &snap)
	snap.Tools = rt.BrokerTools(s.broker, s.key)
	if items, err := rt.DB.Approvals(ctx, store.ApprovalPending, 200); err == nil {
		for _, a := range items {
			snap.Reviews = append(snap.Reviews, store.ReviewItem(a))
		}
	}
	snap.Audit, snap.AuditTotal = b.auditTail(ctx)
	s.owner.noteSnapshot(snap)
	return snap
}

// auditTail returns the newest 60 events, leaving out successful reads (the full view, L,
// has everything); it re-reads only when the chain grew.
func (b *Backend) auditTail(ctx context.Context) ([]tui.AuditRow, int64) {
	db := b.s.rt.DB
	last, err := db.LastSeq(ctx)
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil || last == b.tailSeq && b.tail != nil {
		return b.tail, b.tailSeq
	}
	evs, err := db.Events(ctx, store.Filter{Limit: 300})
	if err != nil {
		return b.tail, b.tailSeq
	}
	rows := make([]tui.AuditRow, 0, 60) // non-nil even when every event is a read: the cache holds
	for _, e := range evs {
		if e.Type == live.KindToolCall && e.Outcome == live.OutcomeAccepted {
			continue
		}
		if rows = append(rows, auditRow(e)); len(rows) == 60 {
			break
		}
	}
	b.tail, b.tailSeq = rows, last
	return rows, last
}

// readBroker reads positions, open orders, the account and quotes, timing the round trip.
func (b *Backend) readBroker(ctx context.Context, snap *tui.Snapshot) {
	br := b.s.broker
	start := time.Now()
	pos, err := br.Positions(ctx)
	if err != nil {
		snap.BrokerErr = err.Error()
		return
	}
	snap.Latency = time.Since(start)
	snap.Positions = pos
	if snap.Orders, err = br.OpenOrders(ctx); err != nil {
		snap.BrokerErr = err.Error()
	}
	if snap.Account, err = br.Account(ctx); err != nil {
		snap.BrokerErr = err.Error()
	} else {
		b.pnl(snap)
	}
	syms := map[string]bool{}
	if b.s.paper != nil {
		for _, sym := range b.s.paper.Market().Symbols() {
			syms[sym] = true
		}
	}
	for _, p := range pos {
		syms[p.Symbol] = true
	}
	for _, o := range snap.Orders {
		syms[o.Symbol] = true
	}
	for sym := range syms {
		if q, err := br.Quote(ctx, sym); err == nil {
			snap.Quotes[sym] = q
		}
	}
	snap.Origins = b.originsFor(ctx, snap.Orders)
	snap.Trails = b.trailsFor(ctx, snap.Orders)
}

// originsFor names who placed each open order, from the order journal.
func (b *Backend) originsFor(ctx context.Context, orders []live.Order) map[string]string {
	b.mu.Lock()
	defer b.mu.Unlock()
	missing := false
	for _, o := range orders {
		if _, ok := b.origins[o.ClientOrderID]; !ok && o.ClientOrderID != "" {
			missing = true
		}
	}
	if missing {
		if entries, err := b.s.rt.DB.JournalEntries(ctx, b.s.key, live.JournalAccepted); err == nil {
			for _, e := range entries {
				b.origins[e.ClientOrderID] = string(e.Actor.Kind) + ":" + e.Actor.ID
			}
		}
		for _, o := range orders {
			if _, ok := b.origins[o.ClientOrderID]; !ok {
				b.origins[o.ClientOrderID] = "?"
			}
		}
	}
	out := make(map[string]string, len(orders))
	for _, o := range orders {
		out[o.ClientOrderID] = b.origins[o.ClientOrderID]
	}
	return out
}

func auditRow(e store.Event) tui.AuditRow {
	return tui.AuditRow{Seq: e.Seq, Time: e.Time, Actor: e.ActorKind + ":" + e.ActorID, Type: e.Type, Outcome: e.Outcome,
		Reason: e.Reason, Tool: e.Tool, OrderID: e.OrderID, Summary: e.Summary}
}

// record audits an operator action taken on the screen.
func (b *Backend) record(ctx context.Context, r live.AuditRecord) error {
	r.Time, r.Actor = b.s.rt.Now(), b.op(ctx)
	if r.Tool == "" {
		r.Tool = "tui"
	}
	if r.Broker == "" {
		r.Broker = b.s.key
	}
	err := b.s.rt.Audit.Record(context.Background(), r)
	if err != nil {
		b.s.rt.Log.Error("audit write failed", "kind", r.Kind, "err", err)
		b.s.gate.TripAuditHalt(fmt.Errorf("audit record %s: %w", r.Kind, err)) // DV15
	}
	return err
}

// Halt implements tui.Backend: H halts everything on the root (the global HALT file, as the
// README says), then the agent is paused at once; the watcher's halt action cancels resting
// orders.
func (b *Backend) Halt(ctx context.Context, reason string) error {
	return b.halt(ctx, live.GlobalScope, reason)
}

// HaltBroker implements tui.Backend: the broker's own HALT file (the command palette).
func (b *Backend) HaltBroker(ctx context.Context, reason string) error {
	return b.halt(ctx, live.Scope{Broker: b.s.key}, reason)
}

// halt writes the sentinel first (the halt stands whatever follows), then pauses the agent.
func (b *Backend) halt(ctx context.Context, scope live.Scope, reason string) error {
	if a, _ := halt.ReadSentinel(b.s.rt.Root, live.HaltSentinel, scope); a != nil {
		b.s.eng.SetHalted(true) // already halted: the first attribution stands
		return nil
	}
	b.s.sentries.expect(b.s.rt.Root.SentinelPath(live.HaltSentinel, scope.Broker), true)
	_, err := halt.Trip(b.s.rt.Root, live.HaltSentinel, scope, b.op(ctx).ID, reason, b.s.rt.Now())
	if !halt.InForce(err) {
		return fmt.Errorf("write the HALT file: %w", err)
	}
	b.s.eng.SetHalted(true)
	b.record(ctx, SentinelRecord(live.KindHaltTripped, live.OutcomeBlocked, live.HaltSentinel, scope, reason))
	return err // nil, or in force but not known to be on disk
}

// ReduceOnly implements tui.Backend.
func (b *Backend) ReduceOnly(ctx context.Context, reason string) error {
	scope := live.Scope{Broker: b.s.key}
	b.s.sentries.expect(b.s.rt.Root.SentinelPath(live.ReduceOnlySentinel, scope.Broker), true)
	_, err := halt.Trip(b.s.rt.Root, live.ReduceOnlySentinel, scope, b.op(ctx).ID, reason, b.s.rt.Now())
	if !halt.InForce(err) {
		return err
	}
	return errors.Join(b.record(ctx, SentinelRecord(live.KindHaltTripped, live.OutcomeBlocked, live.ReduceOnlySentinel, scope, reason)), err)
}

// Resume implements tui.Backend: every sentinel that stops this broker is removed (the
// broker's and the global ones), each removal audited. Resuming adds risk, so an audit
// trail that cannot be written refuses it.
func (b *Backend) Resume(ctx context.Context, reason string) error {
	root := b.s.rt.Root
	if h, ok := b.s.gate.Latched(); ok {
		return fmt.Errorf("not resumed: %s — quit, run `cockpit audit rotate --reason …` if the store is damaged, then restart", h.Message())
	}
	var cleared []string
	for _, scope := range []live.Scope{live.GlobalScope, {Broker: b.s.key}} {
		for _, kind := range []live.Sentinel{live.HaltSentinel, live.ReduceOnlySentinel} {
			if a, _ := halt.ReadSentinel(root, kind, scope); a == nil {
				continue
			}
			if err := b.record(ctx, SentinelRecord(live.KindHaltCleared, live.OutcomeAccepted, kind, scope, reason)); err != nil {
				return fmt.Errorf("not resumed: the audit trail cannot be written: %w", err)
			}
			b.s.sentries.expect(root.SentinelPath(kind, scope.Broker), false)
			if _, err := halt.Clear(root, kind, scope); err != nil {
				return fmt.Errorf("clear %s (%s): %w", kind, scope, err)
			}
			cleared = append(cleared, fmt.Sprintf("%s (%s)", kind, scope))
		}
	}
	if on, why := b.s.latch.Halted(); on {
		if err := b.record(ctx, latchRecord(why, reason)); err != nil {
			return fmt.Errorf("not resumed: the audit trail cannot be written: %w", err)
		}
		b.s.latch.Clear()
		cleared = append(cleared, "the watcher's halt latch")
	}
	b.s.watcher.Recheck()
	if err := halt.EnsureReserve(root); err != nil { // a trip from the full disk used it
		b.s.rt.Log.Warn("reserve HALT file not made", "err", err)
	}
	if len(cleared) == 0 {
		return errors.New("nothing to resume: no HALT or REDUCE_ONLY file stops " + b.s.key)
	}
	b.s.rt.Log.Info("resumed from the screen", "cleared", strings.Join(cleared, ", "), "reason", reason)
	return nil
}

// Flatten implements tui.Backend.
func (b *Backend) Flatten(ctx context.Context, progress func(gate.FlattenProgress)) gate.FlattenReport {
	return b.flatten(ctx, true, "flatten from the screen", "operator flatten from the screen", progress)
}

// flatten halts the broker, then cancels resting orders and, when closePositions, closes
// every position, verified. It holds the flatten lock from before the HALT file is written,
// so the operator's flatten does the work (audited as the operator's) and the watcher's halt
// action, started by that file, finds nothing left.
func (b *Backend) flatten(ctx context.Context, closePositions bool, haltWhy, why string, progress func(gate.FlattenProgress)) gate.FlattenReport {
	b.s.flattenMu.Lock()
	defer b.s.flattenMu.Unlock()
	if err := b.HaltBroker(ctx, haltWhy); !halt.InForce(err) {
		return gate.FlattenReport{Broker: b.s.key, VerifyErr: err.Error()}
	}
	return b.s.gate.Flatten(ctx, b.s.broker, b.s.key, gate.FlattenOptions{ClosePositions: closePositions, Actor: b.op(ctx),
		Why: why, Progress: progress})
}

// Approve implements tui.Backend.
func (b *Backend) Approve(ctx context.Context, id, reason string) error {
	return b.resolve(ctx, id, store.ApprovalApproved, reason)
}

// Deny implements tui.Backend.
func (b *Backend) Deny(ctx context.Context, id, reason string) error {
	return b.resolve(ctx, id, store.ApprovalDenied, reason)
}

func (b *Backend) resolve(ctx context.Context, id string, state store.ApprovalState, reason string) error {
	it, err := b.s.rt.DB.Resolve(ctx, id, state, b.op(ctx).ID, reason)
	if err != nil {
		return err
	}
	order, _ := jsonv.ParseString(it.OrderJSON, jsonv.Options{})
	return b.record(ctx, live.AuditRecord{Kind: live.ApprovalKind(state), Outcome: string(state), ApprovalID: id,
		Request: order, Intent: fmt.Sprintf("%s review item %s: %s", verbFor(state), id, reason),
		Detail: jsonv.ObjectOf("digest", it.Digest, "why", it.Why, "limit", it.Limit)})
}

func verbFor(s store.ApprovalState) string {
	if s == store.ApprovalApproved {
		return "approve"
	}
	return "deny"
}

// Cancel implements tui.Backend (the gate's cancel path audits it).
func (b *Backend) Cancel(ctx context.Context, orderID string) error {
	d := b.s.gate.Cancel(ctx, b.s.broker, b.s.key, orderID, b.op(ctx))
	if d.BrokerErr != nil {
		return d.BrokerErr
	}
	if d.Verdict != live.Allow {
		return errors.New(d.Message())
	}
	return nil
}

// ClosePosition implements tui.Backend: a reduce-only market order through the gate's
// operator path.
func (b *Backend) ClosePosition(ctx context.Context, symbol string) error {
	pos, err := b.s.broker.Positions(ctx)
	if err != nil {
		return err
	}
	for _, p := range pos {
		if p.Symbol != symbol || p.Qty.Sign() == 0 {
			continue
		}
		side := live.Sell
		if p.Qty.Sign() < 0 {
			side = live.Buy
		}
		d := b.s.gate.SubmitReducing(ctx, gate.ReduceRequest{Broker: b.s.broker, BrokerKey: b.s.key, Symbol: symbol, Side: side,
			Quantity: p.Qty.Abs(), Actor: b.op(ctx), Why: "operator closed the position from the screen"})
		if d.Verdict != live.Allow || d.BrokerErr != nil {
			return errors.New(d.Message())
		}
		return nil
	}
	return fmt.Errorf("no open position in %s", symbol)
}

// Block implements tui.Backend: the engine's session block list, audited.
func (b *Backend) Block(ctx context.Context, symbol, reason string) error {
	return b.s.eng.Block(ctx, b.op(ctx), symbol, reason)
}

// Unblock implements tui.Backend.
func (b *Backend) Unblock(ctx context.Context, symbol, reason string) error {
	return b.s.eng.Unblock(ctx, b.op(ctx), symbol, reason)
}

// Audit implements tui.Backend.
func (b *Backend) Audit(ctx context.Context, f tui.AuditFilter) ([]tui.AuditRow, error) {
	evs, err := b.s.rt.DB.Events(ctx, store.Filter{Text: f.Text, BeforeSeq: f.BeforeSeq, Limit: f.Limit})
	if err != nil {
		return nil, err
	}
	out := make([]tui.AuditRow, len(evs))
	for i, e := range evs {
		out[i] = auditRow(e)
	}
	return out, nil
}

// ExportAudit implements tui.Backend: JSONL under <root>/exports.
func (b *Backend) ExportAudit(ctx context.Context) (string, error) {
	dir := filepath.Join(b.s.rt.Root.Dir(), "exports")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "audit-"+b.s.rt.Now().UTC().Format("20060102-150405")+".jsonl")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := ExportEvents(ctx, b.s.rt.DB, "jsonl", f); err != nil {
		return "", err
	}
	return path, f.Sync()
}

// CommitMandate implements tui.Backend.
func (b *Backend) CommitMandate(ctx context.Context, doc []byte, days int, typed string) (*mandatefile.CommitResult, error) {
	if typed != b.s.key {
		return nil, fmt.Errorf("typed %q, not the broker name %q: nothing was committed", typed, b.s.key)
	}
	return CommitMandate(b.s.rt, b.s.key, doc, "screen", days, "", b.op(ctx))
}

// Follow feeds engine events to the screen (send is tea.Program.Send) and keeps the day's
// largest order, until ctx ends.
func (b *Backend) Follow(ctx context.Context, send func(any)) {
	for ev := range b.s.eng.Bus.Subscribe(ctx, 1024) {
		if ev.Kind == engine.EvDecision {
			b.noteDecision(ev.Decision)
		}
		send(tui.EventMsg{Event: ev})
	}
}

// haltLine says why, where, by whom and when a halt sentinel was written, leaving out what
// the file does not say (a HALT file made with `touch` says nothing but its scope).
func haltLine(a *halt.Attribution, scope live.Scope) string {
	why := a.Reason
	if why == "" {
		why = "no reason written"
	}
	parts := []string{scope.String()}
	if a.By != "" {
		parts = append(parts, a.By)
	}
	if t, err := live.ParseExpiry(a.TrippedAt); err == nil {
		parts = append(parts, t.UTC().Format("15:04:05 UTC"))
	} else if a.TrippedAt != "" {
		parts = append(parts, a.TrippedAt)
	}
	return why + " (" + strings.Join(parts, ", ") + ")"
}
