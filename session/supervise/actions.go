package supervise

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
	"cockpit/live/mandatefile"
	"cockpit/session"
	"cockpit/store"
	"cockpit/tui"
)

// record audits an operator action taken from the supervising screen.
func (b *Backend) record(ctx context.Context, r live.AuditRecord) error {
	r.Time, r.Actor = b.rt.Now(), b.op(ctx)
	if r.Tool == "" {
		r.Tool = "tui"
	}
	if r.Broker == "" {
		r.Broker = b.key
	}
	err := b.rt.Audit.Record(context.Background(), r)
	if err != nil {
		b.rt.Log.Error("audit write failed", "kind", r.Kind, "err", err)
	}
	return err
}

// Halt implements tui.Backend: the global HALT file (the owner's watcher acts on it).
func (b *Backend) Halt(ctx context.Context, reason string) error {
	return b.halt(ctx, live.GlobalScope, reason)
}

// HaltBroker implements tui.Backend: the broker's own HALT file.
func (b *Backend) HaltBroker(ctx context.Context, reason string) error {
	return b.halt(ctx, live.Scope{Broker: b.key}, reason)
}

func (b *Backend) halt(ctx context.Context, scope live.Scope, reason string) error {
	if a, _ := halt.ReadSentinel(b.rt.Root, live.HaltSentinel, scope); a != nil {
		return nil // already halted: the first attribution stands
	}
	_, err := halt.Trip(b.rt.Root, live.HaltSentinel, scope, b.op(ctx).ID, reason, b.rt.Now())
	if !halt.InForce(err) {
		return fmt.Errorf("write the HALT file: %w", err)
	}
	b.record(ctx, session.SentinelRecord(live.KindHaltTripped, live.OutcomeBlocked, live.HaltSentinel, scope, reason))
	return err // nil, or in force but not known to be on disk
}

// ReduceOnly implements tui.Backend.
func (b *Backend) ReduceOnly(ctx context.Context, reason string) error {
	scope := live.Scope{Broker: b.key}
	_, err := halt.Trip(b.rt.Root, live.ReduceOnlySentinel, scope, b.op(ctx).ID, reason, b.rt.Now())
	if !halt.InForce(err) {
		return err
	}
	return errors.Join(b.record(ctx, session.SentinelRecord(live.KindHaltTripped, live.OutcomeBlocked, live.ReduceOnlySentinel, scope, reason)), err)
}

// Resume implements tui.Backend: the sentinels that stop this broker are removed, each
// removal audited first (an audit that cannot be written refuses it). The owner's own
// in-memory halt is cleared only on its screen.
func (b *Backend) Resume(ctx context.Context, reason string) error {
	root, cleared := b.rt.Root, 0
	for _, scope := range []live.Scope{live.GlobalScope, {Broker: b.key}} {
		for _, kind := range []live.Sentinel{live.HaltSentinel, live.ReduceOnlySentinel} {
			if a, _ := halt.ReadSentinel(root, kind, scope); a == nil {
				continue
			}
			if err := b.record(ctx, session.SentinelRecord(live.KindHaltCleared, live.OutcomeAccepted, kind, scope, reason)); err != nil {
				return fmt.Errorf("not resumed: the audit trail cannot be written: %w", err)
			}
			if _, err := halt.Clear(root, kind, scope); err != nil {
				return fmt.Errorf("clear %s (%s): %w", kind, scope, err)
			}
			cleared++
		}
	}
	if ls, _ := b.liveState(ctx); ls.OwnerHalt != "" {
		why := ls.OwnerHalt
		return fmt.Errorf("the owning process is halted in memory (%s): resume it on its own screen or restart it", why)
	}
	if cleared == 0 {
		return errors.New("nothing to resume: no HALT or REDUCE_ONLY file stops " + b.key)
	}
	return nil
}

// Flatten implements tui.Backend: a live owner halts the broker, flattens and verifies (its
// records name this supervisor's operator); with the owner gone this process halts, opens the
// configured broker (its account lock is free once the owner died) and flattens itself.
func (b *Backend) Flatten(ctx context.Context, progress func(gate.FlattenProgress)) gate.FlattenReport {
	return b.FlattenWith(ctx, true, progress)
}

// FlattenWith is Flatten that closes positions only when closePositions (the CLI's choice).
func (b *Backend) FlattenWith(ctx context.Context, closePositions bool, progress func(gate.FlattenProgress)) gate.FlattenReport {
	b.flattenMu.Lock()
	defer b.flattenMu.Unlock()
	res, err := b.command(ctx, "flatten", session.CommandArgs{KeepPositions: !closePositions}, progress)
	if err == nil && res.Report != nil {
		return *res.Report
	}
	// Whatever went wrong, nothing new is placed from here on.
	if herr := b.HaltBroker(ctx, "flatten from a supervisor"); !halt.InForce(herr) {
		return gate.FlattenReport{Broker: b.key, VerifyErr: herr.Error()}
	}
	switch {
	case errors.Is(err, ErrOwnerGone):
		return b.flattenSelf(ctx, closePositions, progress)
	case err != nil:
		return gate.FlattenReport{Broker: b.key, VerifyErr: "halted; the owner's flatten failed: " + err.Error()}
	}
	return gate.FlattenReport{Broker: b.key, VerifyErr: "halted; the owner's flatten ended without a report"}
}

// flattenSelf flattens with the configured broker, through the gate's operator path, verified.
func (b *Backend) flattenSelf(ctx context.Context, closePositions bool, progress func(gate.FlattenProgress)) gate.FlattenReport {
	rt := b.rt
	release, err := rt.OwnAccount(b.key)
	if err != nil {
		return gate.FlattenReport{Broker: b.key, VerifyErr: "owner gone but its account is still locked (a hung process?): " + err.Error()}
	}
	br, release, err := rt.OpenOwnedBroker(b.key, release)
	if err != nil {
		return gate.FlattenReport{Broker: b.key, VerifyErr: err.Error()}
	}
	defer release()
	if c, ok := br.(io.Closer); ok {
		defer c.Close()
	}
	return rt.Gate(session.GateOptions{}).Flatten(ctx, br, b.key, gate.FlattenOptions{ClosePositions: closePositions, Actor: b.op(ctx),
		Why: "operator flatten from a supervisor (owner gone)", Progress: progress})
}

// command queues one command for the owner and waits for its end, passing flatten progress
// on; ErrOwnerGone when no live owner answers (the command is then failed owner_gone).
func (b *Backend) command(ctx context.Context, kind string, args session.CommandArgs, progress func(gate.FlattenProgress)) (session.CommandResult, error) {
	var res session.CommandResult
	db := b.rt.DB
	if _, alive, err := b.Owner(ctx); err != nil {
		return res, err
	} else if !alive {
		return res, ErrOwnerGone
	}
	data, _ := json.Marshal(args)
	if err := ctx.Err(); err != nil {
		return res, err
	}
	// Once queued, the command is read and withdrawn without the caller's deadline: only the
	// wait below ends with it, so a command nobody claimed is never left pending to run late.
	bg := context.WithoutCancel(ctx)
	id, err := db.EnqueueCommand(bg, store.Command{Actor: session.OperatorFrom(ctx, b.operator), Broker: b.key, Kind: kind, Args: string(data)})
	if err != nil {
		return res, err
	}
	seen := 0 // bytes of progress already handed on
	for {
		c, err := db.CommandByID(bg, id)
		if err != nil {
			if ok, _ := db.AbandonCommand(bg, id); ok {
				return res, fmt.Errorf("not done: command %d could not be read back (%w), so it was withdrawn", id, err)
			}
			return res, fmt.Errorf("command %d could not be read back (%w): if the owner runs it, its outcome will be in the audit", id, err)
		}
		if len(c.Progress) > seen { // the steps appended since the last read, in order
			for _, line := range strings.Split(strings.TrimSuffix(c.Progress[seen:], "\n"), "\n") {
				var p gate.FlattenProgress
				if progress != nil && json.Unmarshal([]byte(line), &p) == nil {
					progress(p)
				}
			}
			seen = len(c.Progress)
		}
		switch c.State {
		case store.CommandDone, store.CommandFailed:
			if err := decodeJSON([]byte(c.Result), &res); err != nil {
				return res, fmt.Errorf("command %d: unreadable result: %w", id, err)
			}
			if res.Error == store.OwnerGone {
				return res, ErrOwnerGone
			}
			if res.Error != "" {
				return res, errors.New(res.Error)
			}
			return res, nil
		}
		if _, alive, err := b.Owner(ctx); err == nil && !alive {
			db.FinishCommand(bg, id, store.CommandFailed, `{"error":"`+store.OwnerGone+`"}`)
			continue // read its end: the owner may have finished it just now
		}
		if c.State == store.CommandPending {
			db.ExpireCommands(ctx, b.key, store.CommandTTL)
		}
		select {
		case <-ctx.Done():
			if ok, _ := db.AbandonCommand(bg, id); ok {
				return res, fmt.Errorf("not done: the owner had not started it (%w)", ctx.Err())
			}
			return res, fmt.Errorf("stopped waiting for the owner, which runs it: its outcome will be in the audit (%w)", ctx.Err())
		case <-time.After(pollEvery):
		}
	}
}

// pollEvery is how often a waiting supervisor re-reads its command.
const pollEvery = 20 * time.Millisecond

func decodeJSON(data []byte, v any) error { return json.Unmarshal(data, v) }

// Cancel implements tui.Backend: the owner cancels the order.
func (b *Backend) Cancel(ctx context.Context, orderID string) error {
	_, err := b.command(ctx, "cancel", session.CommandArgs{OrderID: orderID}, nil)
	return err
}

// ClosePosition implements tui.Backend: the owner closes the position.
func (b *Backend) ClosePosition(ctx context.Context, symbol string) error {
	_, err := b.command(ctx, "close", session.CommandArgs{Symbol: symbol}, nil)
	return err
}

// Block implements tui.Backend: the owner's engine blocks the symbol.
func (b *Backend) Block(ctx context.Context, symbol, reason string) error {
	_, err := b.command(ctx, "block", session.CommandArgs{Symbol: symbol, Reason: reason}, nil)
	return err
}

// Unblock implements tui.Backend.
func (b *Backend) Unblock(ctx context.Context, symbol, reason string) error {
	_, err := b.command(ctx, "unblock", session.CommandArgs{Symbol: symbol, Reason: reason}, nil)
	return err
}

// Approve implements tui.Backend: through the store (the owner's gate sees it).
func (b *Backend) Approve(ctx context.Context, id, reason string) error {
	return b.resolve(ctx, id, store.ApprovalApproved, reason)
}

// Deny implements tui.Backend.
func (b *Backend) Deny(ctx context.Context, id, reason string) error {
	return b.resolve(ctx, id, store.ApprovalDenied, reason)
}

func (b *Backend) resolve(ctx context.Context, id string, state store.ApprovalState, reason string) error {
	it, err := b.rt.DB.Resolve(ctx, id, state, b.op(ctx).ID, reason)
	if err != nil {
		return err
	}
	verb := "deny"
	if state == store.ApprovalApproved {
		verb = "approve"
	}
	order, _ := jsonv.ParseString(it.OrderJSON, jsonv.Options{})
	return b.record(ctx, live.AuditRecord{Kind: live.ApprovalKind(state), Outcome: string(state), ApprovalID: id,
		Request: order, Intent: fmt.Sprintf("%s review item %s: %s", verb, id, reason),
		Detail: jsonv.ObjectOf("digest", it.Digest, "why", it.Why, "limit", it.Limit)})
}

// Audit implements tui.Backend.
func (b *Backend) Audit(ctx context.Context, f tui.AuditFilter) ([]tui.AuditRow, error) {
	evs, err := b.rt.DB.Events(ctx, store.Filter{Text: f.Text, BeforeSeq: f.BeforeSeq, Limit: f.Limit})
	if err != nil {
		return nil, err
	}
	out := make([]tui.AuditRow, len(evs))
	for i, e := range evs {
		out[i] = session.AuditRow(e)
	}
	return out, nil
}

// ExportAudit implements tui.Backend: JSONL under <root>/exports.
func (b *Backend) ExportAudit(ctx context.Context) (string, error) {
	dir := filepath.Join(b.rt.Root.Dir(), "exports")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "audit-"+b.rt.Now().UTC().Format("20060102-150405")+".jsonl")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := session.ExportEvents(ctx, b.rt.DB, "jsonl", f); err != nil {
		return "", err
	}
	return path, f.Sync()
}

// CommitMandate implements tui.Backend through the existing commit path (file and store, as
// `cockpit mandate commit` from another terminal does): the owner's gate reads the committed
// mandate on its next check.
func (b *Backend) CommitMandate(ctx context.Context, doc []byte, days int, typed string) (*mandatefile.CommitResult, error) {
	if typed != b.key {
		return nil, fmt.Errorf("typed %q, not the broker name %q: nothing was committed", typed, b.key)
	}
	return session.CommitMandate(b.rt, b.key, doc, "screen", days, "", b.op(ctx))
}
