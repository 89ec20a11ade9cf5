package store

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"strings"

	"cockpit/live"
)

var _ live.ProbingJournal = (*DB)(nil)

// ProbesFor implements live.ProbingJournal: the store probes itself.
func (db *DB) ProbesFor(sink live.AuditSink) bool {
	d, ok := sink.(*DB)
	return ok && d == db
}

// BeginProbed implements live.ProbingJournal: ProbeAudit and Begin in one transaction of the
// group commit, so a forward costs one write-lock round trip and one fsync before the broker
// call.
func (db *DB) BeginProbed(ctx context.Context, e live.JournalEntry) error {
	return db.begin(ctx, e, true)
}

// probeIn inserts the probe's event inside a savepoint of tx and rolls it back: the constraint,
// trigger or lock that would refuse the next record refuses this first, and nothing is kept.
//
// A probe that passed under a schema (PRAGMA schema_version) whose only triggers on events are
// the store's own (BEFORE UPDATE and BEFORE DELETE, which an insert never fires) is not run
// again until the schema changes: with nothing else able to refuse an insert, it would pass
// again, and its rolled-back pages would still be written to the WAL with each write-ahead
// commit (four pages, a third of that commit). Any trigger or table change, by any process,
// changes the schema version, and the next probe runs in full; with a foreign trigger on
// events, every probe runs. A failed I/O, a full disk or a read-only file fails the
// write-ahead row itself, probe or not.
func (db *DB) probeIn(ctx context.Context, tx *sql.Tx) error {
	var version int64
	s, err := db.txStmt(ctx, tx, schemaVersion)
	if err == nil {
		err = s.QueryRowContext(ctx).Scan(&version)
	}
	if err != nil {
		return err
	}
	if version != 0 && version == db.probedSchema.Load() {
		return nil
	}
	if _, err := db.txExec(ctx, tx, `SAVEPOINT probe`); err != nil {
		return err
	}
	_, err = db.txExec(ctx, tx, probeInsert)
	if _, rerr := db.txExec(ctx, tx, `ROLLBACK TO probe`); rerr != nil {
		return errors.Join(err, rerr)
	}
	if _, rerr := db.txExec(ctx, tx, `RELEASE probe`); rerr != nil {
		return errors.Join(err, rerr)
	}
	if err == nil && ownEventTriggersOnly(ctx, tx) {
		db.probedSchema.Store(version)
	}
	return err
}

// schemaVersion reads the schema cookie, which every schema change moves.
const schemaVersion = `PRAGMA schema_version`

// ownEventTriggersOnly reports whether every trigger on events is one of the store's own,
// word for word as its first migration creates it.
func ownEventTriggersOnly(ctx context.Context, tx *sql.Tx) bool {
	rows, err := tx.QueryContext(ctx, `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'events'`)
	if err != nil {
		return false
	}
	defer rows.Close()
	init, err := fs.ReadFile(migrationFiles, "migrations/0001_init.sql")
	if err != nil {
		return false
	}
	for rows.Next() {
		var name, text string
		if err := rows.Scan(&name, &text); err != nil {
			return false
		}
		own := name == "events_append_only_update" || name == "events_append_only_delete"
		if !own || !strings.Contains(string(init), text) {
			return false
		}
	}
	return rows.Err() == nil
}

// probeError is a BeginProbed failure of the probe: its text is the probe's, and it is
// live.ErrAuditProbe.
type probeError struct{ err error }

func (e probeError) Error() string        { return e.err.Error() }
func (e probeError) Unwrap() error        { return e.err }
func (e probeError) Is(target error) bool { return target == live.ErrAuditProbe }
