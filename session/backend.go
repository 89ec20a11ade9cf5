package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"cockpit/readmodel"

	"cockpit/engine"
	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
	"cockpit/live/mandatefile"
	"cockpit/store"
)

// Backend is the screen's view of a running session (tui.Backend): it reads the session's read
// model and carries out the operator's actions, each audited as the operator's.
type Backend struct {
	s        *Session
	operator live.Principal
}

// Backend returns the screen's backend over this session, made on first use: its actions
// are audited as the operator's ("tui:<user>").
func (s *Session) Backend() *Backend {
	s.backendOnce.Do(func() { s.backend = newBackend(s) })
	return s.backend
}

func newBackend(s *Session) *Backend {
	return &Backend{s: s, operator: live.Operator(strings.Replace(OperatorName(), "cli", "tui", 1), s.id)}
}

// Snapshot implements tui.Backend: the session's read model.
func (b *Backend) Snapshot(ctx context.Context) readmodel.Snapshot {
	snap := b.s.reader.Snapshot(ctx)
	b.s.owner.noteSnapshot(snap)
	return snap
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
	if on, why := b.s.latch.Resumable(); on {
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
	rep := b.s.gate.Flatten(ctx, b.s.broker, b.s.key, gate.FlattenOptions{ClosePositions: closePositions, Actor: b.op(ctx),
		Why: why, Progress: progress})
	rep.Halted = true
	return rep
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
func (b *Backend) Audit(ctx context.Context, f readmodel.AuditFilter) ([]readmodel.AuditRow, error) {
	return b.s.reader.Audit(ctx, f)
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

// Follow yields the engine's events to a window (the caller adapts them to its own messages)
// until ctx ends.
func (b *Backend) Follow(ctx context.Context, send func(engine.Event)) {
	for ev := range b.s.eng.Bus.Subscribe(ctx, 1024) {
		send(ev)
	}
}
