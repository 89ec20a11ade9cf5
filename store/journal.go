package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/redact"
)

var _ live.Journal = (*DB)(nil)

// Begin implements live.Journal: the order's intent is written, redacted and durably, before
// the broker call. A second Begin for the same client order id is refused.
func (db *DB) Begin(ctx context.Context, e live.JournalEntry) error {
	return db.begin(ctx, e, false)
}

// begin writes the write-ahead row; with probe, the audit probe runs first in the same
// transaction (BeginProbed).
func (db *DB) begin(ctx context.Context, e live.JournalEntry, probe bool) error {
	if err := db.anchorErr(); err != nil {
		if probe {
			return probeError{fmt.Errorf("audit probe: the chain-head anchor could not be written: %w", err)}
		}
		return fmt.Errorf("journal: the chain-head anchor could not be written: %w", err)
	}
	raw, err := jsonv.FromGo(e.Request)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	req, err := jsonv.Marshal(redact.ForStorage(raw), jsonv.Compact)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	at := e.Created
	if at.IsZero() {
		at = db.now()
	}
	var probeErr error
	err = db.txGroup(ctx, func(tx *sql.Tx) (Head, error) {
		wctx := context.WithoutCancel(ctx)
		if probe {
			if probeErr = db.probeIn(wctx, tx); probeErr != nil {
				return Head{}, probeErr
			}
		}
		reduceOnly := 0
		if e.Request.ReduceOnly {
			reduceOnly = 1 // left out of the day's count (journal_day_counts)
		}
		_, err := db.txExec(wctx, tx, journalInsert, e.ClientOrderID, e.Broker, string(e.Actor.Kind), e.Actor.ID, e.Actor.SessionID, string(req),
			string(live.JournalSubmitting), at.UnixNano(), at.UnixNano(), reduceOnly)
		return Head{}, err
	})
	if err != nil && probeErr != nil {
		return probeError{fmt.Errorf("audit probe: %w", err)}
	}
	return err
}

// Finish implements live.Journal: the outcome of the broker call.
func (db *DB) Finish(ctx context.Context, id string, state live.JournalState, orderID, detail string, at time.Time) error {
	return db.txGroup(ctx, func(tx *sql.Tx) (Head, error) {
		return Head{}, db.finishIn(context.WithoutCancel(ctx), tx, id, state, orderID, detail, at)
	})
}

// finishIn writes a journal outcome in tx.
func (db *DB) finishIn(ctx context.Context, tx *sql.Tx, id string, state live.JournalState, orderID, detail string, at time.Time) error {
	if at.IsZero() {
		at = db.now()
	}
	res, err := db.txExec(ctx, tx, journalFinish, string(state), orderID, redact.Secrets(detail), at.UnixNano(), id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return errors.Join(err, fmt.Errorf("journal: no entry %s: %w", id, live.ErrOrderNotFound))
	}
	return nil
}

var _ live.OutcomeRecorder = (*DB)(nil)

// FinishRecord implements live.OutcomeRecorder: the journal outcome and the audit record of
// one forward in one durable transaction (shared with concurrent writers), so a crash keeps
// both or neither.
func (db *DB) FinishRecord(ctx context.Context, id string, state live.JournalState, orderID, detail string, at time.Time, rec live.AuditRecord) error {
	ev := EventFromRecord(rec)
	err := db.txGroup(ctx, func(tx *sql.Tx) (Head, error) {
		wctx := context.WithoutCancel(ctx)
		if err := db.finishIn(wctx, tx, id, state, orderID, detail, at); err != nil {
			return Head{}, err
		}
		out, err := db.insertEvents(wctx, tx, []Event{ev})
		return anchorOf(out), err
	})
	if err != nil {
		return fmt.Errorf("journal outcome and audit record: %w", err)
	}
	return nil
}

// AcceptedOrders implements live.Journal: orders on broker begun on day's UTC day that the
// broker may hold (accepted, indeterminate, submitting; live.JournalMayHold), plus the orders
// an accepted one made the broker create (a bracket's legs, recorded as {"children":N} in its
// outcome detail), less the operator's reduce-only orders. The sum is kept per broker and day
// by triggers on the journal (migration 0008), in the same transaction as each journal write,
// so reading it costs one key lookup however many orders the day holds.
func (db *DB) AcceptedOrders(ctx context.Context, broker string, day time.Time) (int, error) {
	start, _ := live.DayBounds(day)
	// On the write connection: it sees its own commits without a new read snapshot, and its
	// page cache outlives them.
	var n int64
	err := db.wstmts[acceptedCount].QueryRowContext(ctx, broker, dayNumber(start)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("journal: count accepted orders: %w", wrap(err))
	}
	if n < 0 { // the triggers never make it so; a count that cannot be right is not used
		return 0, fmt.Errorf("journal: count accepted orders: %s's count for %s is %d", broker, live.UTCDay(start), n)
	}
	return int(n), nil
}

// acceptedCount reads a broker's day count (journal_day_counts; none yet is 0).
const acceptedCount = `SELECT COALESCE((SELECT n FROM journal_day_counts WHERE broker = ? AND day = ?), 0)`

// dayNumber is t's UTC day as journal_day_counts numbers it: Unix ns floored to whole days.
func dayNumber(t time.Time) int64 {
	const day = int64(24 * time.Hour)
	ns := t.UnixNano()
	if ns >= 0 {
		return ns / day
	}
	return (ns+1)/day - 1
}

// JournalEntries returns journal rows, newest first; states filters when non-empty.
func (db *DB) JournalEntries(ctx context.Context, broker string, states ...live.JournalState) ([]live.JournalEntry, error) {
	q := `SELECT client_order_id, broker, actor_kind, actor_id, session_id, request, state, order_id, detail,
		created_at, updated_at FROM order_journal WHERE (? = '' OR broker = ?)`
	args := []any{broker, broker}
	if len(states) > 0 {
		q += " AND state IN ("
		for i, s := range states {
			if i > 0 {
				q += ","
			}
			q += "?"
			args = append(args, string(s))
		}
		q += ")"
	}
	rows, err := db.readQuery(ctx, q+" ORDER BY created_at DESC", args...)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	var out []live.JournalEntry
	for rows.Next() {
		var e live.JournalEntry
		var kind, req, state string
		var created, updated int64
		if err := rows.Scan(&e.ClientOrderID, &e.Broker, &kind, &e.Actor.ID, &e.Actor.SessionID, &req, &state,
			&e.OrderID, &e.Detail, &created, &updated); err != nil {
			return nil, err
		}
		e.Actor.Kind, e.State = live.ActorKind(kind), live.JournalState(state)
		e.Created, e.Updated = time.Unix(0, created).UTC(), time.Unix(0, updated).UTC()
		if err := json.Unmarshal([]byte(req), &e.Request); err != nil {
			e.Detail = "unreadable request: " + err.Error()
		}
		out = append(out, e)
	}
	return out, wrap(rows.Err())
}

// ReconcileResult is what start-up reconciliation concluded about one journal row.
type ReconcileResult struct {
	ClientOrderID string
	Was           live.JournalState
	Now           live.JournalState
	OrderID       string
	Err           error
}

// Reconcile settles journal rows left submitting or indeterminate (a crash between the write
// and the outcome, or a lost reply) by asking the broker for each client order id. Found means
// accepted; not found means the broker never saw it; any other answer leaves the row
// indeterminate. Every conclusion is audited; nothing is resent.
func (db *DB) Reconcile(ctx context.Context, b live.Broker, broker string, actor live.Principal) ([]ReconcileResult, error) {
	pending, err := db.JournalEntries(ctx, broker, live.JournalSubmitting, live.JournalIndeterminate)
	if err != nil {
		return nil, err
	}
	var out []ReconcileResult
	for _, e := range pending {
		res := ReconcileResult{ClientOrderID: e.ClientOrderID, Was: e.State, Now: live.JournalIndeterminate}
		o, err := b.OrderByClientID(ctx, e.ClientOrderID)
		switch {
		case err == nil:
			res.Now, res.OrderID = live.JournalAccepted, o.ID
		case errors.Is(err, live.ErrOrderNotFound):
			res.Now = live.JournalRejected
		default:
			res.Err = err
		}
		detail := "reconciled at start-up"
		if res.Err != nil {
			detail = "still unknown: " + res.Err.Error()
		}
		if err := db.Finish(ctx, e.ClientOrderID, res.Now, res.OrderID, detail, db.now()); err != nil {
			return out, err
		}
		outcome := map[live.JournalState]string{live.JournalAccepted: live.OutcomeAccepted,
			live.JournalRejected: live.OutcomeRejected, live.JournalIndeterminate: live.OutcomeIndeterminate}[res.Now]
		if err := db.Record(ctx, live.AuditRecord{Time: db.now(), Actor: actor, Kind: live.KindReconciled, Outcome: outcome,
			Broker: e.Broker, ClientOrderID: e.ClientOrderID, OrderID: res.OrderID, Request: e.Request,
			Intent: fmt.Sprintf("reconcile %s (%s → %s)", e.ClientOrderID, e.State, res.Now), Error: errString(res.Err)}); err != nil {
			return out, err
		}
		out = append(out, res)
	}
	return out, nil
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
