package store

import (
	"context"
	"database/sql"
	"errors"

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
func (db *DB) probeIn(ctx context.Context, tx *sql.Tx) error {
	if _, err := db.txExec(ctx, tx, `SAVEPOINT probe`); err != nil {
		return err
	}
	_, err := db.txExec(ctx, tx, probeInsert)
	if _, rerr := db.txExec(ctx, tx, `ROLLBACK TO probe`); rerr != nil {
		return errors.Join(err, rerr)
	}
	if _, rerr := db.txExec(ctx, tx, `RELEASE probe`); rerr != nil {
		return errors.Join(err, rerr)
	}
	return err
}

// probeError is a BeginProbed failure of the probe: its text is the probe's, and it is
// live.ErrAuditProbe.
type probeError struct{ err error }

func (e probeError) Error() string        { return e.err.Error() }
func (e probeError) Unwrap() error        { return e.err }
func (e probeError) Is(target error) bool { return target == live.ErrAuditProbe }
