package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"cockpit/live/redact"
)

// ApprovalState is where a review item stands.
type ApprovalState string

// Review item states.
const (
	ApprovalPending  ApprovalState = "pending"
	ApprovalApproved ApprovalState = "approved"
	ApprovalDenied   ApprovalState = "denied"
	ApprovalTimedOut ApprovalState = "timed_out"
	ApprovalVoided   ApprovalState = "voided"
)

// Approval is one item of the review queue.
type Approval struct {
	ID          string
	SessionID   string
	Broker      string
	OrderJSON   string // the exact order the human sees (canonical JSON)
	Digest      string // sha256 of OrderJSON
	Why         string // "supervised" or "breach"
	Limit       string
	LimitValue  string
	Attempted   string
	Detail      string
	AgentReason string // untrusted text from the agent
	CreatedAt   time.Time
	Deadline    time.Time
	State       ApprovalState
	ResolvedBy  string
	ResolvedAt  time.Time
	Resolution  string           // the resolver's reason
	Consumed    bool             // an approval grant is used once
	Breaches    []ApprovalBreach // every breach the order had when it was asked
	Outcome     string           // after an approval: what the re-checked order did
	Mandate     string           // SHA-256 of the verified mandate the item was computed under
}

// ApprovalBreach is one breach a review item shows (and an approval covers).
type ApprovalBreach struct {
	Limit      string `json:"limit"`
	LimitValue string `json:"limit_value"`
	Attempted  string `json:"attempted"`
	Detail     string `json:"detail"`
}

// ErrNotPending reports an approval that was already resolved.
var ErrNotPending = errors.New("review item is not pending")

// ErrNoApproval reports an unknown review item.
var ErrNoApproval = errors.New("no such review item")

// CreateApproval inserts a pending review item; its free texts are redacted like the audit.
func (db *DB) CreateApproval(ctx context.Context, a Approval) error {
	breaches := ""
	if len(a.Breaches) > 0 {
		b, err := json.Marshal(a.Breaches)
		if err != nil {
			return err
		}
		breaches = string(b)
	}
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO approvals (id, session_id, broker, order_json, digest, why, limit_name,
			limit_value, attempted, detail, agent_reason, created_at, deadline, state, breaches, mandate_sha256)
			VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			a.ID, a.SessionID, a.Broker, a.OrderJSON, a.Digest, redact.Secrets(a.Why), a.Limit, a.LimitValue, a.Attempted,
			redact.Secrets(a.Detail), redact.Secrets(a.AgentReason), a.CreatedAt.UnixNano(), a.Deadline.UnixNano(),
			string(ApprovalPending), redact.Secrets(breaches), a.Mandate)
		return err
	})
}

// Resolve moves a pending item to approved, denied, timed_out or voided; it fails with
// ErrNotPending when someone resolved it first (resolution is first-writer-wins).
func (db *DB) Resolve(ctx context.Context, id string, state ApprovalState, by, why string) (Approval, error) {
	var a Approval
	err := db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE approvals SET state = ?, resolved_by = ?, resolved_at = ?, resolution = ?
			WHERE id = ? AND state = ?`, string(state), by, db.now().UnixNano(), redact.Secrets(why), id, string(ApprovalPending))
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		got, err := getApproval(ctx, tx, id)
		if err != nil {
			return err
		}
		a = got
		if n == 0 {
			return fmt.Errorf("%w: %s is %s", ErrNotPending, id, got.State)
		}
		return nil
	})
	if err == nil {
		db.notify.wake() // the waiters in this process see it now, not at their next poll
	}
	return a, err
}

// ConsumeGrant uses an approved item's one-use grant; it fails if the item is not approved,
// was used already, or its digest does not match the order now being placed.
func (db *DB) ConsumeGrant(ctx context.Context, id, digest string) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE approvals SET consumed = 1 WHERE id = ? AND state = ? AND consumed = 0 AND digest = ?`,
			id, string(ApprovalApproved), digest)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("grant %s is not usable (not approved, already used, or for another order)", id)
		}
		return nil
	})
}

// SetApprovalOutcome records what an approved order did when the gate ran it again.
func (db *DB) SetApprovalOutcome(ctx context.Context, id, outcome string) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE approvals SET outcome = ? WHERE id = ?`, redact.Secrets(outcome), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("%w: %s", ErrNoApproval, id)
		}
		return nil
	})
}

// VoidPending voids every pending item (at start-up: nobody is waiting for them any more).
func (db *DB) VoidPending(ctx context.Context, why string) (int64, error) {
	var n int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE approvals SET state = ?, resolved_by = 'system', resolved_at = ?, resolution = ?
			WHERE state = ?`, string(ApprovalVoided), db.now().UnixNano(), why, string(ApprovalPending))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}

// VoidPendingFor voids broker's pending items (a new mandate was committed: their numbers
// were computed under the old one) and returns their ids.
func (db *DB) VoidPendingFor(ctx context.Context, broker, why string) ([]string, error) {
	var ids []string
	err := db.tx(ctx, func(tx *sql.Tx) error {
		ids = nil
		rows, err := tx.QueryContext(ctx, `SELECT id FROM approvals WHERE state = ? AND broker = ? ORDER BY created_at`, string(ApprovalPending), broker)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE approvals SET state = ?, resolved_by = 'system', resolved_at = ?, resolution = ?
			WHERE state = ? AND broker = ?`, string(ApprovalVoided), db.now().UnixNano(), redact.Secrets(why), string(ApprovalPending), broker)
		return err
	})
	if err == nil && len(ids) > 0 {
		db.notify.wake() // the engine waiting on them hears at once
	}
	return ids, wrap(err)
}

// Approval returns one review item (from the writer, so a resolution by another process is
// seen at once).
func (db *DB) Approval(ctx context.Context, id string) (Approval, error) {
	return getApproval(ctx, db.r, id)
}

type querier interface {
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

const approvalColumns = `id, session_id, broker, order_json, digest, why, limit_name, limit_value, attempted, detail,
	agent_reason, created_at, deadline, state, resolved_by, COALESCE(resolved_at, 0), resolution, consumed, breaches, outcome,
	mandate_sha256`

func getApproval(ctx context.Context, q querier, id string) (Approval, error) {
	a, err := scanApproval(q.QueryRowContext(ctx, `SELECT `+approvalColumns+` FROM approvals WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Approval{}, fmt.Errorf("%w: %s", ErrNoApproval, id)
	}
	return a, wrap(err)
}

func scanApproval(row interface{ Scan(...any) error }) (Approval, error) {
	var a Approval
	var created, deadline, resolved int64
	var state string
	var consumed int
	var breaches string
	err := row.Scan(&a.ID, &a.SessionID, &a.Broker, &a.OrderJSON, &a.Digest, &a.Why, &a.Limit, &a.LimitValue,
		&a.Attempted, &a.Detail, &a.AgentReason, &created, &deadline, &state, &a.ResolvedBy, &resolved, &a.Resolution, &consumed,
		&breaches, &a.Outcome, &a.Mandate)
	if err == nil && breaches != "" {
		if jerr := json.Unmarshal([]byte(breaches), &a.Breaches); jerr != nil {
			err = fmt.Errorf("review item %s: unreadable breaches: %w", a.ID, jerr)
		}
	}
	a.CreatedAt, a.Deadline, a.State, a.Consumed = time.Unix(0, created).UTC(), time.Unix(0, deadline).UTC(), ApprovalState(state), consumed == 1
	if resolved > 0 {
		a.ResolvedAt = time.Unix(0, resolved).UTC()
	}
	return a, err
}

// approvalsInState lists the items in one state through approvals_state (state, deadline).
const approvalsInState = `SELECT ` + approvalColumns + ` FROM approvals WHERE state = ? ORDER BY created_at DESC LIMIT ?`

// Approvals lists review items, newest first; state filters when non-empty.
func (db *DB) Approvals(ctx context.Context, state ApprovalState, limit int) ([]Approval, error) {
	if limit <= 0 {
		limit = 200
	}
	// Two statements, not one "(? = '' OR state = ?)": that OR hid the state from SQLite's
	// planner, so the screen's list of pending items sorted every item ever made each second.
	q, args := `SELECT `+approvalColumns+` FROM approvals ORDER BY created_at DESC LIMIT ?`, []any{limit}
	if state != "" {
		q, args = approvalsInState, []any{string(state), limit}
	}
	rows, err := db.readQuery(ctx, q, args...)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	var out []Approval
	for rows.Next() {
		a, err := scanApproval(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, wrap(rows.Err())
}

// WaitResolved waits until an item is no longer pending, its deadline passes (then it is
// resolved timed_out here), or ctx ends. A resolution (or an audit commit) in this process
// wakes it at once; polling every poll sees one made by another process (`cockpit approvals`)
// and the deadline within that time.
func (db *DB) WaitResolved(ctx context.Context, id string, poll time.Duration, now func() time.Time) (Approval, error) {
	if poll <= 0 || poll > time.Second {
		poll = 200 * time.Millisecond
	}
	wake := db.notify.subscribe()
	defer db.notify.unsubscribe(wake)
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		a, err := db.Approval(ctx, id)
		if err != nil {
			return a, err
		}
		if a.State != ApprovalPending {
			return a, nil
		}
		if !now().Before(a.Deadline) {
			a, err := db.Resolve(ctx, id, ApprovalTimedOut, "system", "no answer by the deadline")
			if errors.Is(err, ErrNotPending) {
				return db.Approval(ctx, id)
			}
			return a, err
		}
		select {
		case <-ctx.Done():
			return a, ctx.Err()
		case <-wake:
		case <-t.C:
		}
	}
}
