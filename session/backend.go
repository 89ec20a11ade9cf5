package session

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"cockpit/engine"
	"cockpit/live"
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
	day     string            // the UTC day largest belongs to
	origins map[string]string // client order id → who placed it
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
func (b *Backend) noteDecision(d *live.Decision) {
	if d == nil || d.Verdict != live.Allow || d.Outcome != live.OutcomeAccepted || d.Intent == nil || d.Intent.NotionalUSD == nil {
		return
	}
	today := b.s.rt.Now().UTC().Format("2006-01-02")
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.day != today {
		b.largest, b.day = money.Zero, today
	}
	if d.Intent.NotionalUSD.GreaterThan(b.largest) {
		b.largest = *d.Intent.NotionalUSD
	}
}

// Snapshot implements tui.Backend.
func (b *Backend) Snapshot(ctx context.Context) tui.Snapshot {
	s, rt := b.s, b.s.rt
	now := rt.Now()
	snap := tui.Snapshot{Taken: now, Broker: s.key, Live: !live.IsPaperBroker(s.key), Paused: s.eng.Paused(),
		HaltFile: rt.Root.SentinelPath(live.HaltSentinel, s.key), HaltFileOK: true, Quotes: map[string]live.Quote{}}
	if s.agent != nil {
		snap.Agent = s.agent.Name()
	}
	snap.State = live.StateOf(rt.Root, s.key)
	snap.Warnings = SentinelWarnings(rt.Root)
	if on, why := s.latch.Halted(); on {
		snap.State, snap.HaltReason = live.Halted, why
	}
	for _, scope := range []live.Scope{live.GlobalScope, {Broker: s.key}} {
		if _, err := os.Stat(rt.Root.SentinelPath(live.HaltSentinel, scope.Broker)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			snap.HaltFileOK = false
		}
		if a, err := live.ReadSentinel(rt.Root, live.HaltSentinel, scope); err == nil && a != nil && snap.HaltReason == "" {
			snap.HaltReason = haltLine(a, scope)
		}
	}
	if h, ok := s.gate.Latched(); ok { // DV15: the in-memory latch, whatever the disk says
		snap.State, snap.Paused, snap.HaltReason = live.Halted, true, string(h.Reason)+": "+h.Detail
	}
	// The gate trusts only the mandate last committed (DV13): one it will not use is shown as
	// a critical error, not as limits.
	if mc := live.ReadMandate(ctx, rt.Root, rt.DB, s.key); !mc.Verified() {
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
	snap.OrdersToday, _ = live.DailyCount(ctx, rt.Root, rt.DB, s.key, now) // the gate's count (DV14)
	b.mu.Lock()
	snap.LargestOrder = b.largest
	b.mu.Unlock()
	b.readBroker(ctx, &snap)
	if items, err := rt.DB.Approvals(ctx, store.ApprovalPending, 200); err == nil {
		for _, a := range items {
			snap.Reviews = append(snap.Reviews, store.ReviewItem(a))
		}
	}
	snap.Audit, snap.AuditTotal = b.auditTail(ctx)
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
		if e.Type == "tool_call" && e.Outcome == live.OutcomeAccepted {
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
func haltLine(a *live.Attribution, scope live.Scope) string {
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
