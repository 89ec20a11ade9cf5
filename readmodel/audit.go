package readmodel

import (
	"context"

	"cockpit/live"
	"cockpit/store"
)

// TailRows is how many audit rows a snapshot carries (the audit pane's tail).
const TailRows = 60

// auditTail is the newest TailRows events (successful reads left out) as of seq.
type auditTail struct {
	rows []AuditRow
	seq  int64
}

// auditTail returns the newest events, reading only the rows appended since the last call.
func (r *Reader) auditTail(ctx context.Context) ([]AuditRow, int64) {
	last, err := r.DB.LastSeq(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	t := &r.tail
	if err != nil || last == t.seq && t.rows != nil {
		return t.rows, t.seq
	}
	evs, err := r.DB.Events(ctx, store.Filter{AfterSeq: t.seq, Limit: 5 * TailRows})
	if err != nil {
		return t.rows, t.seq
	}
	rows := make([]AuditRow, 0, TailRows) // non-nil even when every event is a read: the cache holds
	for _, e := range evs {
		if e.Type == live.KindToolCall && e.Outcome == live.OutcomeAccepted {
			continue
		}
		if rows = append(rows, RowOf(e)); len(rows) == TailRows {
			break
		}
	}
	rows = append(rows, t.rows...)
	if len(rows) > TailRows {
		rows = rows[:TailRows]
	}
	if len(evs) > 0 && evs[0].Seq > last { // appended between the two reads
		last = evs[0].Seq
	}
	t.rows, t.seq = rows, last
	return rows, last
}

// RowOf is an audit event as the screen lists it.
func RowOf(e store.Event) AuditRow {
	return AuditRow{Seq: e.Seq, Time: e.Time, Actor: e.ActorKind + ":" + e.ActorID, Type: e.Type, Outcome: e.Outcome,
		Reason: e.Reason, Tool: e.Tool, OrderID: e.OrderID, Summary: e.Summary}
}

// Audit reads a page of the audit trail, newest first.
func (r *Reader) Audit(ctx context.Context, f AuditFilter) ([]AuditRow, error) {
	return Page(ctx, r.DB, f)
}

// Page reads a page of a store's audit trail, newest first.
func Page(ctx context.Context, db *store.DB, f AuditFilter) ([]AuditRow, error) {
	evs, err := db.Events(ctx, store.Filter{Text: f.Text, BeforeSeq: f.BeforeSeq, Limit: f.Limit})
	if err != nil {
		return nil, err
	}
	rows := make([]AuditRow, len(evs))
	for i, e := range evs {
		rows[i] = RowOf(e)
	}
	return rows, nil
}
