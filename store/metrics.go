package store

import (
	"context"
	"database/sql"
	"time"
)

// SetAppendObserver has fn told how long each append to the audit trail took, commit
// included (the metrics' histogram); nil stops it. Safe to call while others append.
func (db *DB) SetAppendObserver(fn func(time.Duration)) {
	if fn == nil {
		db.appendObs.Store(nil)
		return
	}
	db.appendObs.Store(&fn)
}

func observeSince(fn func(time.Duration), start time.Time) { fn(time.Since(start)) }

// ApprovalCounts counts the review items by state, and says when the oldest pending one was
// made (zero when none is pending).
func (db *DB) ApprovalCounts(ctx context.Context) (map[ApprovalState]int, time.Time, error) {
	rows, err := db.readQuery(ctx, `SELECT state, COUNT(*), MIN(created_at) FROM approvals GROUP BY state`)
	if err != nil {
		return nil, time.Time{}, wrap(err)
	}
	defer rows.Close()
	out := map[ApprovalState]int{}
	var oldest time.Time
	for rows.Next() {
		var state string
		var n int
		var first sql.NullInt64
		if err := rows.Scan(&state, &n, &first); err != nil {
			return nil, time.Time{}, wrap(err)
		}
		out[ApprovalState(state)] = n
		if ApprovalState(state) == ApprovalPending && first.Valid {
			oldest = time.Unix(0, first.Int64).UTC()
		}
	}
	return out, oldest, wrap(rows.Err())
}
