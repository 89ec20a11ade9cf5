package store

import (
	"context"
	"database/sql"
	"os"
	"time"
)

// Session is one cockpit run.
type Session struct {
	ID        string
	StartedAt time.Time
	Mode      string // paper or live
	Broker    string
	Agent     string
}

// StartSession records a run and makes it the default session of events without one.
func (db *DB) StartSession(ctx context.Context, s Session) error {
	if s.StartedAt.IsZero() {
		s.StartedAt = db.now()
	}
	err := db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, started_at, mode, broker, agent, pid) VALUES (?,?,?,?,?,?)`,
			s.ID, s.StartedAt.UnixNano(), s.Mode, s.Broker, s.Agent, os.Getpid())
		return err
	})
	if err == nil {
		db.Session = s.ID
	}
	return err
}

// EndSession stamps a run's end.
func (db *DB) EndSession(ctx context.Context, id string) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE sessions SET ended_at = ? WHERE id = ?`, db.now().UnixNano(), id)
		return err
	})
}

// Stats is a summary for status screens.
type Stats struct {
	Events   int64
	Pending  int64 // review items waiting
	Journal  int64 // journal rows not settled
	LastTime time.Time
}

// Stats counts what a status line shows.
func (db *DB) Stats(ctx context.Context) (Stats, error) {
	var s Stats
	var last sql.NullInt64
	err := db.r.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0), MAX(ts) FROM events`).Scan(&s.Events, &last)
	if err != nil {
		return s, wrap(err)
	}
	if last.Valid {
		s.LastTime = time.Unix(0, last.Int64).UTC()
	}
	if err := db.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM approvals WHERE state = 'pending'`).Scan(&s.Pending); err != nil {
		return s, wrap(err)
	}
	err = db.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM order_journal WHERE state IN ('submitting', 'indeterminate')`).Scan(&s.Journal)
	return s, wrap(err)
}

// Checkpoint folds the write-ahead log into the database file.
func (db *DB) Checkpoint(ctx context.Context) error {
	_, err := db.w.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	return wrap(err)
}
