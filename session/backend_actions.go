package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/store"
)

// The operator's actions on the screen: each is audited as the operator's, and an audit
// record that cannot be written trips the gate's audit halt (DV15).

// record audits an operator action taken on the screen.
func (b *Backend) record(r live.AuditRecord) error {
	r.Time, r.Actor = b.s.rt.Now(), b.operator
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
func (b *Backend) Halt(_ context.Context, reason string) error {
	return b.halt(live.GlobalScope, reason)
}

// HaltBroker implements tui.Backend: the broker's own HALT file (the command palette).
func (b *Backend) HaltBroker(_ context.Context, reason string) error {
	return b.halt(live.Scope{Broker: b.s.key}, reason)
}

// halt writes the sentinel first (the halt stands whatever follows), then pauses the agent.
func (b *Backend) halt(scope live.Scope, reason string) error {
	if a, _ := live.ReadSentinel(b.s.rt.Root, live.HaltSentinel, scope); a != nil {
		b.s.eng.SetHalted(true) // already halted: the first attribution stands
		return nil
	}
	b.s.sentries.expect(b.s.rt.Root.SentinelPath(live.HaltSentinel, scope.Broker), true)
	if _, err := live.Trip(b.s.rt.Root, live.HaltSentinel, scope, b.operator.ID, reason, b.s.rt.Now()); err != nil {
		return fmt.Errorf("write the HALT file: %w", err)
	}
	b.s.eng.SetHalted(true)
	b.record(SentinelRecord(live.KindHaltTripped, live.OutcomeBlocked, live.HaltSentinel, scope, reason))
	return nil
}

// ReduceOnly implements tui.Backend.
func (b *Backend) ReduceOnly(_ context.Context, reason string) error {
	scope := live.Scope{Broker: b.s.key}
	b.s.sentries.expect(b.s.rt.Root.SentinelPath(live.ReduceOnlySentinel, scope.Broker), true)
	if _, err := live.Trip(b.s.rt.Root, live.ReduceOnlySentinel, scope, b.operator.ID, reason, b.s.rt.Now()); err != nil {
		return err
	}
	return b.record(SentinelRecord(live.KindHaltTripped, live.OutcomeBlocked, live.ReduceOnlySentinel, scope, reason))
}

// Resume implements tui.Backend: every sentinel that stops this broker is removed (the
// broker's and the global ones), each removal audited. Resuming adds risk, so an audit
// trail that cannot be written refuses it.
func (b *Backend) Resume(_ context.Context, reason string) error {
	root := b.s.rt.Root
	if h, ok := b.s.gate.Latched(); ok {
		return fmt.Errorf("not resumed: %s — quit, run `cockpit audit rotate --reason …` if the store is damaged, then restart", h.Message())
	}
	var cleared []string
	for _, scope := range []live.Scope{live.GlobalScope, {Broker: b.s.key}} {
		for _, kind := range []live.Sentinel{live.HaltSentinel, live.ReduceOnlySentinel} {
			if a, _ := live.ReadSentinel(root, kind, scope); a == nil {
				continue
			}
			if err := b.record(SentinelRecord(live.KindHaltCleared, live.OutcomeAccepted, kind, scope, reason)); err != nil {
				return fmt.Errorf("not resumed: the audit trail cannot be written: %w", err)
			}
			b.s.sentries.expect(root.SentinelPath(kind, scope.Broker), false)
			if _, err := live.Clear(root, kind, scope); err != nil {
				return fmt.Errorf("clear %s (%s): %w", kind, scope, err)
			}
			cleared = append(cleared, fmt.Sprintf("%s (%s)", kind, scope))
		}
	}
	if on, why := b.s.latch.Halted(); on {
		if err := b.record(latchRecord(why, reason)); err != nil {
			return fmt.Errorf("not resumed: the audit trail cannot be written: %w", err)
		}
		b.s.latch.Clear()
		cleared = append(cleared, "the watcher's halt latch")
	}
	b.s.watcher.Recheck()
	if len(cleared) == 0 {
		return errors.New("nothing to resume: no HALT or REDUCE_ONLY file stops " + b.s.key)
	}
	b.s.rt.Log.Info("resumed from the screen", "cleared", strings.Join(cleared, ", "), "reason", reason)
	return nil
}

// Flatten implements tui.Backend.
func (b *Backend) Flatten(ctx context.Context, progress func(live.FlattenProgress)) live.FlattenReport {
	if err := b.HaltBroker(ctx, "flatten from the screen"); err != nil {
		return live.FlattenReport{Broker: b.s.key, VerifyErr: err.Error()}
	}
	b.s.flattenMu.Lock()
	defer b.s.flattenMu.Unlock()
	return b.s.gate.Flatten(ctx, b.s.broker, b.s.key, live.FlattenOptions{ClosePositions: true, Actor: b.operator,
		Why: "operator flatten from the screen", Progress: progress})
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
	it, err := b.s.rt.DB.Resolve(ctx, id, state, b.operator.ID, reason)
	if err != nil {
		return err
	}
	order, _ := jsonv.ParseString(it.OrderJSON, jsonv.Options{})
	return b.record(live.AuditRecord{Kind: "approval_" + string(state), Outcome: string(state), ApprovalID: id,
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
	d := b.s.gate.Cancel(ctx, b.s.broker, b.s.key, orderID, b.operator)
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
		d := b.s.gate.SubmitReducing(ctx, live.ReduceRequest{Broker: b.s.broker, BrokerKey: b.s.key, Symbol: symbol, Side: side,
			Quantity: p.Qty.Abs(), Actor: b.operator, Why: "operator closed the position from the screen"})
		if d.Verdict != live.Allow || d.BrokerErr != nil {
			return errors.New(d.Message())
		}
		return nil
	}
	return fmt.Errorf("no open position in %s", symbol)
}

// CommitMandate implements tui.Backend.
func (b *Backend) CommitMandate(_ context.Context, doc []byte, days int, typed string) (*live.CommitResult, error) {
	if typed != b.s.key {
		return nil, fmt.Errorf("typed %q, not the broker name %q: nothing was committed", typed, b.s.key)
	}
	return CommitMandate(b.s.rt, b.s.key, doc, "screen", days, "", b.operator)
}
