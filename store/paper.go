package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"time"
)

// PaperState returns the stored paper account of broker (JSON), or false when there is none.
func (db *DB) PaperState(ctx context.Context, broker string) ([]byte, bool, error) {
	var s string
	err := db.r.QueryRowContext(ctx, `SELECT state FROM paper_accounts WHERE broker = ?`, broker).Scan(&s)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, wrap(err)
	}
	return []byte(s), true, nil
}

// SavePaperState stores the paper account of broker, durably.
func (db *DB) SavePaperState(ctx context.Context, broker string, state []byte) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO paper_accounts (broker, state, updated_at) VALUES (?, ?, ?)
			ON CONFLICT(broker) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
			broker, string(state), db.now().UnixNano())
		return err
	})
}

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
