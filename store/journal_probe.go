package store

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"sync"
	"time"

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
// A probe that passed under a schema (the main and temp schema_version cookies) in which events
// has exactly the store's own table, indexes and triggers (ownEventsOnly) is not run again
// until the schema changes: with nothing else able to refuse an insert, it would pass again,
// and its rolled-back pages would still be written to the WAL with each write-ahead commit
// (four pages, a third of that commit). Any schema change, by any process, moves a cookie, and
// the next probe runs in full; with anything foreign on events, every probe runs. A failed
// I/O, a full disk or a read-only file fails the write-ahead row itself, probe or not. (A
// schema edited through PRAGMA writable_schema with the cookie put back is not seen until the
// process restarts; SQLite itself does not see it on a connection already open.)
func (db *DB) probeIn(ctx context.Context, tx *sql.Tx) error {
	var main, temp int64
	s, err := db.txStmt(ctx, tx, schemaVersion)
	if err == nil {
		err = s.QueryRowContext(ctx).Scan(&main)
	}
	if err == nil {
		s, err = db.txStmt(ctx, tx, tempSchemaVersion)
	}
	if err == nil {
		err = s.QueryRowContext(ctx).Scan(&temp)
	}
	if err != nil {
		return err
	}
	version := main<<32 | temp&(1<<32-1)
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
	if err == nil && ownEventsOnly(ctx, tx) {
		db.probedSchema.Store(version)
	}
	return err
}

// schemaVersion and tempSchemaVersion read the main and the temp schema's cookies: every
// schema change moves one of them (a TEMP trigger on main.events moves only the temp one).
const (
	schemaVersion     = `PRAGMA main.schema_version`
	tempSchemaVersion = `PRAGMA temp.schema_version`
)

// eventsSchema lists everything the main and temp schemas attach to the events table, by any
// spelling of its name (an index, a trigger, the table itself): type, name and SQL, one per
// line, sorted.
const eventsSchema = `SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_master
	WHERE lower(tbl_name) = 'events' UNION ALL
	SELECT 'temp ' || type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_temp_master
	WHERE lower(tbl_name) = 'events' ORDER BY 1`

// ownEventsSchema is eventsSchema on a new in-memory database after this build's migrations:
// what a store that nobody else changed holds.
var ownEventsSchema = sync.OnceValues(func() ([]string, error) {
	w, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, err
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	mem := &DB{path: ":memory:", w: w, Now: time.Now, notify: newNotifier()}
	if err := mem.migrate(context.Background()); err != nil {
		return nil, err
	}
	return querySchema(context.Background(), w)
})

// querySchema runs eventsSchema.
func querySchema(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}) ([]string, error) {
	rows, err := q.QueryContext(ctx, eventsSchema)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, err
		}
		out = append(out, line)
	}
	return out, rows.Err()
}

// ownEventsOnly reports whether what the schema attaches to events is exactly what this
// build's migrations create, word for word: then only the store's own BEFORE UPDATE and
// BEFORE DELETE triggers, its own constraints and its own indexes can act on an insert, and
// none of those can refuse the probe's. Anything else (a trigger, a UNIQUE index, a table
// rebuilt with a CHECK), or a failure to tell, makes every probe run in full.
func ownEventsOnly(ctx context.Context, tx *sql.Tx) bool {
	own, err := ownEventsSchema()
	if err != nil {
		return false
	}
	have, err := querySchema(ctx, tx)
	return err == nil && slices.Equal(have, own)
}

// probeError is a BeginProbed failure of the probe: its text is the probe's, and it is
// live.ErrAuditProbe.
type probeError struct{ err error }

func (e probeError) Error() string        { return e.err.Error() }
func (e probeError) Unwrap() error        { return e.err }
func (e probeError) Is(target error) bool { return target == live.ErrAuditProbe }
