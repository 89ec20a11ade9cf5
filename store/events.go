package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"cockpit/live"
	"cockpit/live/auditsink"
	"cockpit/live/jsonv"
)

// GenesisHash is the prev_hash of the first event.
const GenesisHash = "genesis"

// Event is one row of the audit trail.
type Event struct {
	Seq           int64
	Time          time.Time
	SessionID     string
	ActorKind     string
	ActorID       string
	TurnID        string
	ToolCallID    string
	Type          string
	Outcome       string
	Reason        string
	Broker        string
	Tool          string
	OrderID       string
	ClientOrderID string
	ApprovalID    string
	Summary       string
	Payload       string // redacted JSON object, sorted keys
	PrevHash      string
	Hash          string
	// Notional is an order event's notional in USD (exact decimal text; "" for none). It is
	// written on append for order events, read by LargestNotional, and not hashed.
	Notional string
}

var _ live.AuditSink = (*DB)(nil)

// Record implements live.AuditSink: the record is redacted first, then appended as one
// durable event.
func (db *DB) Record(ctx context.Context, r live.AuditRecord) error {
	_, err := db.Append(ctx, EventFromRecord(r))
	return err
}

// EventFromRecord redacts an audit record and lays it out as an event (no seq or hashes yet).
func EventFromRecord(r live.AuditRecord) Event {
	r = auditsink.Redact(r)
	payload := jsonv.NewObject()
	set := func(k string, v any) {
		if v != nil && v != "" {
			payload.Set(k, v)
		}
	}
	set("intent", r.Intent)
	set("mandate_ref", r.MandateRef)
	set("consent_ref", r.ConsentRef)
	set("request", r.Request)
	set("response", r.Response)
	if d := r.Decision; d != nil {
		dec := jsonv.ObjectOf("allowed", d.Allowed, "decision", string(d.Decision))
		checked := make([]any, len(d.Checked))
		for i, c := range d.Checked {
			checked[i] = c
		}
		dec.Set("checked", checked)
		if d.Limit != "" {
			dec.Set("limit", d.Limit)
			dec.Set("kind", d.Kind)
			if d.LimitValue != nil {
				dec.Set("limit_value", live.EncodeAmount(*d.LimitValue))
			}
			if d.Attempted != nil {
				dec.Set("attempted_value", live.EncodeAmount(*d.Attempted))
			}
		}
		if d.Approved != "" {
			dec.Set("approved_by_grant", d.Approved)
		}
		payload.Set("decision", dec)
	}
	set("error", r.Error)
	set("detail", r.Detail)
	text, err := jsonv.Canonical(payload)
	if err != nil { // a non-finite number slipped in: keep the row, say so
		text = jsonv.MustMarshal(jsonv.ObjectOf("unencodable_payload", err.Error()), jsonv.Compact)
	}
	return Event{Time: r.Time, SessionID: r.Actor.SessionID, ActorKind: string(r.Actor.Kind), ActorID: r.Actor.ID,
		TurnID: r.Actor.TurnID, ToolCallID: r.Actor.ToolCallID, Type: r.Kind, Outcome: r.Outcome,
		Reason: string(r.Reason), Broker: r.Broker, Tool: r.Tool, OrderID: r.OrderID,
		ClientOrderID: r.ClientOrderID, ApprovalID: r.ApprovalID, Summary: r.Intent, Payload: string(text),
		Notional: orderNotional(r)}
}

// orderNotional is the notional column of an order event ("" for other events).
func orderNotional(r live.AuditRecord) string {
	if r.Notional == nil || !strings.HasPrefix(r.Kind, "order_") {
		return ""
	}
	return r.Notional.String()
}

// hashInput is the canonical encoding an event's hash covers: every column but the hash,
// then the payload text as stored.
func hashInput(e Event) []byte {
	head := jsonv.ObjectOf(
		"seq", jsonv.Number(fmt.Sprint(e.Seq)), "ts", jsonv.Number(fmt.Sprint(e.Time.UnixNano())),
		"session_id", e.SessionID, "actor_kind", e.ActorKind, "actor_id", e.ActorID, "turn_id", e.TurnID,
		"tool_call_id", e.ToolCallID, "type", e.Type, "outcome", e.Outcome, "reason", e.Reason,
		"broker", e.Broker, "tool", e.Tool, "order_id", e.OrderID, "client_order_id", e.ClientOrderID,
		"approval_id", e.ApprovalID, "summary", e.Summary, "prev_hash", e.PrevHash)
	b, _ := jsonv.Canonical(head)
	b = append(b, '\n')
	return append(b, e.Payload...)
}

// HashEvent computes an event's hash.
func HashEvent(e Event) string {
	sum := sha256.Sum256(hashInput(e))
	return hex.EncodeToString(sum[:])
}

// Append writes one event at the end of the chain, durably (synchronous=FULL), and returns it
// with its seq and hashes. Concurrent writers in other processes wait on SQLite's lock.
func (db *DB) Append(ctx context.Context, e Event) (Event, error) {
	out, err := db.appendEvents(ctx, []Event{e})
	if err != nil {
		return Event{}, fmt.Errorf("append audit event: %w", err)
	}
	return out[0], nil
}

// AppendBatch appends events in one transaction (one fsync for all), for high-volume
// telemetry and imports; the chain is the same as with Append.
func (db *DB) AppendBatch(ctx context.Context, events []Event) ([]Event, error) {
	out, err := db.appendEvents(ctx, events)
	if err != nil {
		return nil, fmt.Errorf("append audit events: %w", err)
	}
	return out, nil
}

// appendEvents inserts events in one transaction, shared with concurrent writers (group
// commit), and returns once it is committed.
func (db *DB) appendEvents(ctx context.Context, events []Event) ([]Event, error) {
	if obs := db.appendObs.Load(); obs != nil {
		defer observeSince(*obs, time.Now())
	}
	var out []Event
	err := db.txGroup(ctx, func(tx *sql.Tx) (Head, error) {
		var err error
		out, err = db.insertEvents(context.WithoutCancel(ctx), tx, events)
		return anchorOf(out), err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// anchorOf is the head an append moves the anchor to (zero for telemetry only).
func anchorOf(out []Event) Head {
	if len(out) == 0 || !anchorWorthy(out) {
		return Head{}
	}
	last := out[len(out)-1]
	return Head{Seq: last.Seq, Hash: last.Hash}
}

// insertEvents fills each event's defaults, chains it to the last one and inserts them in tx.
func (db *DB) insertEvents(ctx context.Context, tx *sql.Tx, events []Event) ([]Event, error) {
	out := make([]Event, len(events))
	var last sql.NullInt64
	var prev sql.NullString
	head, err := db.txStmt(ctx, tx, eventsHead)
	if err != nil {
		return nil, err
	}
	err = head.QueryRowContext(ctx).Scan(&last, &prev)
	seq, prevHash := int64(0), GenesisHash
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, err
	default:
		seq, prevHash = last.Int64, prev.String
	}
	stmt, err := db.txStmt(ctx, tx, eventsInsert)
	if err != nil {
		return nil, err
	}
	for i, e := range events {
		if e.Time.IsZero() {
			e.Time = db.now()
		}
		e.Time = e.Time.UTC()
		if e.SessionID == "" {
			e.SessionID = db.Session
		}
		if e.ActorKind == "" {
			e.ActorKind = string(live.ActorSystem)
		}
		if e.Payload == "" {
			e.Payload = "{}"
		}
		seq++
		e.Seq, e.PrevHash = seq, prevHash
		e.Hash = HashEvent(e)
		if _, err := stmt.ExecContext(ctx, e.Seq, e.Time.UnixNano(), e.SessionID, e.ActorKind, e.ActorID, e.TurnID,
			e.ToolCallID, e.Type, e.Outcome, e.Reason, e.Broker, e.Tool, e.OrderID, e.ClientOrderID, e.ApprovalID,
			e.Summary, e.Payload, e.PrevHash, e.Hash, nullable(e.Notional)); err != nil {
			return nil, err
		}
		if e.Type == live.KindFill { // the trades and P&L tables follow the trail in its transaction
			if err := db.deriveFill(ctx, tx, e); err != nil {
				return nil, fmt.Errorf("derive fill %d: %w", e.Seq, err)
			}
		}
		prevHash = e.Hash
		out[i] = e
	}
	return out, nil
}

const eventColumns = `seq, ts, session_id, actor_kind, actor_id, turn_id, tool_call_id, type, outcome, reason,
	broker, tool, order_id, client_order_id, approval_id, summary, payload, prev_hash, hash`

func scanEvent(row interface{ Scan(...any) error }) (Event, error) {
	var e Event
	var ts int64
	err := row.Scan(&e.Seq, &ts, &e.SessionID, &e.ActorKind, &e.ActorID, &e.TurnID, &e.ToolCallID, &e.Type,
		&e.Outcome, &e.Reason, &e.Broker, &e.Tool, &e.OrderID, &e.ClientOrderID, &e.ApprovalID, &e.Summary,
		&e.Payload, &e.PrevHash, &e.Hash)
	e.Time = time.Unix(0, ts).UTC()
	return e, err
}

// Event returns one event by seq.
func (db *DB) Event(ctx context.Context, seq int64) (Event, error) {
	e, err := scanEvent(db.r.QueryRowContext(ctx, `SELECT `+eventColumns+` FROM events WHERE seq = ?`, seq))
	if errors.Is(err, sql.ErrNoRows) {
		return Event{}, fmt.Errorf("no audit event %d", seq)
	}
	return e, wrap(err)
}

// ChainBreak is the first event whose hash or link does not check out.
type ChainBreak struct {
	Seq    int64
	Reason string // hash_mismatch, prev_hash_mismatch, seq_gap
	Detail string
}

// VerifyReport is the result of recomputing the chain.
type VerifyReport struct {
	Events int64
	Last   string // hash of the last event
	Break  *ChainBreak
}

// OK reports an intact chain.
func (r VerifyReport) OK() bool { return r.Break == nil }

// Verify recomputes the whole chain in seq order and reports the first bad row.
func (db *DB) Verify(ctx context.Context, progress func(done int64)) (VerifyReport, error) {
	return db.VerifyFrom(ctx, 1, progress)
}

// VerifyFrom recomputes the chain from event from (its link to the event before it included)
// to the end; Events counts the events verified.
func (db *DB) VerifyFrom(ctx context.Context, from int64, progress func(done int64)) (VerifyReport, error) {
	prev := GenesisHash
	if from <= 1 {
		from = 1
	} else if err := db.r.QueryRowContext(ctx, `SELECT hash FROM events WHERE seq = ?`, from-1).Scan(&prev); err != nil {
		return VerifyReport{}, wrap(err)
	}
	rows, err := db.r.QueryContext(ctx, `SELECT `+eventColumns+` FROM events WHERE seq >= ? ORDER BY seq`, from)
	if err != nil {
		return VerifyReport{}, wrap(err)
	}
	defer rows.Close()
	rep := VerifyReport{Last: prev} // an empty range ends where it starts
	if from == 1 {
		rep.Last = ""
	}
	want := from
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			return rep, err
		}
		switch {
		case e.Seq != want:
			rep.Break = &ChainBreak{Seq: e.Seq, Reason: "seq_gap", Detail: fmt.Sprintf("expected seq %d", want)}
		case e.PrevHash != prev:
			rep.Break = &ChainBreak{Seq: e.Seq, Reason: "prev_hash_mismatch", Detail: fmt.Sprintf("stored prev_hash %s, previous event's hash %s", e.PrevHash, prev)}
		case HashEvent(e) != e.Hash:
			rep.Break = &ChainBreak{Seq: e.Seq, Reason: "hash_mismatch", Detail: fmt.Sprintf("stored hash %s, recomputed %s", e.Hash, HashEvent(e))}
		}
		if rep.Break != nil {
			return rep, nil
		}
		prev, want, rep.Last = e.Hash, want+1, e.Hash
		rep.Events++
		if progress != nil && rep.Events%50000 == 0 {
			progress(rep.Events)
		}
	}
	return rep, wrap(rows.Err())
}

// sinceSeq bounds a query by time to the seqs that can hold it: the smallest seq among the
// events at or after a time, found in events_ts (ts need not grow with seq; the bound holds
// either way), so the cost follows the events since then, not the chain's length.
const sinceSeq = `seq >= (SELECT COALESCE(MIN(seq), 9223372036854775807) FROM events INDEXED BY events_ts WHERE ts >= ?)`

// Filter selects events for listing; zero fields do not filter.
type Filter struct {
	Since     time.Time
	Until     time.Time
	Type      string
	Reason    string
	OrderID   string // matches order_id or client_order_id
	Broker    string
	Text      string // substring of the summary, type or reason
	BeforeSeq int64  // keyset paging: only events older than this
	AfterSeq  int64  // only events newer than this
	Limit     int    // default 100
	Ascending bool
}

// Events lists events newest first (or oldest first with Ascending), using the indexes on
// time, type, order id and reason; paging is by seq.
func (db *DB) Events(ctx context.Context, f Filter) ([]Event, error) {
	q, args := eventsQuery(f)
	rows, err := db.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, wrap(rows.Err())
}

// eventsQuery is Events' statement for f and its arguments.
func eventsQuery(f Filter) (string, []any) {
	var where []string
	var args []any
	add := func(cond string, v any) { where = append(where, cond); args = append(args, v) }
	if !f.Since.IsZero() {
		add("ts >= ?", f.Since.UnixNano())
		// The events since then begin at or after the first seq whose ts is since (read from
		// events_ts): with a type or a reason the planner walks its index by seq, and without
		// this bound it walked every such event the chain ever held.
		add(sinceSeq, f.Since.UnixNano())
	}
	if !f.Until.IsZero() {
		add("ts < ?", f.Until.UnixNano())
	}
	if f.Type != "" {
		add("type = ?", f.Type)
	}
	if f.Reason != "" { // the "<> ''" lets SQLite use the partial index
		add("reason = ? AND reason <> ''", f.Reason)
	}
	if f.Broker != "" {
		add("broker = ?", f.Broker)
	}
	if f.OrderID != "" {
		where = append(where, "((order_id = ? AND order_id <> '') OR (client_order_id = ? AND client_order_id <> ''))")
		args = append(args, f.OrderID, f.OrderID)
	}
	if f.Text != "" {
		where = append(where, "(instr(summary, ?) > 0 OR instr(type, ?) > 0 OR instr(reason, ?) > 0)")
		args = append(args, f.Text, f.Text, f.Text)
	}
	if f.BeforeSeq > 0 {
		add("seq < ?", f.BeforeSeq)
	}
	if f.AfterSeq > 0 {
		add("seq > ?", f.AfterSeq)
	}
	q := `SELECT ` + eventColumns + ` FROM events`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	if f.Ascending {
		q += " ORDER BY seq ASC"
	} else {
		q += " ORDER BY seq DESC"
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	q += fmt.Sprintf(" LIMIT %d", limit)
	return q, args
}

// LastSeq returns the newest event's seq (0 when empty).
func (db *DB) LastSeq(ctx context.Context) (int64, error) {
	var n sql.NullInt64
	s, err := db.readStmt(ctx, `SELECT MAX(seq) FROM events`)
	if err == nil {
		err = s.QueryRowContext(ctx).Scan(&n)
	}
	return n.Int64, wrap(err)
}

// Tail streams events after afterSeq as they are appended — by this process (at once) or by
// any other (within poll) — until ctx ends.
func (db *DB) Tail(ctx context.Context, afterSeq int64, poll time.Duration) <-chan Event {
	if poll <= 0 {
		poll = 250 * time.Millisecond
	}
	out := make(chan Event, 256)
	wake := db.notify.subscribe()
	go func() {
		defer close(out)
		defer db.notify.unsubscribe(wake)
		t := time.NewTicker(poll)
		defer t.Stop()
		for {
			evs, err := db.Events(ctx, Filter{AfterSeq: afterSeq, Ascending: true, Limit: 500})
			if err == nil {
				for _, e := range evs {
					select {
					case out <- e:
						afterSeq = e.Seq
					case <-ctx.Done():
						return
					}
				}
			}
			if len(evs) == 500 {
				continue
			}
			select {
			case <-ctx.Done():
				return
			case <-wake:
			case <-t.C:
			}
		}
	}()
	return out
}
