package store

import (
	"context"
	"database/sql"
)

// Statements of the order path's write transactions, prepared once on the write connection
// when the store opens: parsing them again in every transaction was a tenth of a durable
// forward's CPU.
const (
	journalInsert = `INSERT INTO order_journal (client_order_id, broker, actor_kind, actor_id,
			session_id, request, state, created_at, updated_at, reduce_only) VALUES (?,?,?,?,?,?,?,?,?,?)`
	journalFinish = `UPDATE order_journal SET state = ?, order_id = ?, detail = ?, updated_at = ?
		WHERE client_order_id = ?`
	eventsHead   = `SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1`
	eventsInsert = `INSERT INTO events (` + eventColumns + `, notional) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`
)

var hotWrites = []string{acceptedCount, journalInsert, journalFinish, eventsHead, eventsInsert, probeInsert,
	paperHeaderUpsert, paperOrderUpsert, paperPositionUpsert,
	schemaVersion, tempSchemaVersion, `SAVEPOINT op`, `ROLLBACK TO op`, `RELEASE op`, `SAVEPOINT probe`, `ROLLBACK TO probe`, `RELEASE probe`}

// prepareWrites prepares hotWrites on the write connection (outside any transaction: the
// pool has one connection, which a transaction holds).
func (db *DB) prepareWrites(ctx context.Context) error {
	db.wstmts = make(map[string]*sql.Stmt, len(hotWrites))
	for _, q := range hotWrites {
		s, err := db.w.PrepareContext(ctx, q)
		if err != nil {
			db.closeWrites()
			return err
		}
		db.wstmts[q] = s
	}
	return nil
}

// closeWrites closes the statements; the map stays as it is (writes racing Close read it).
func (db *DB) closeWrites() {
	for _, s := range db.wstmts {
		s.Close()
	}
}

// txStmt is tx's use of the prepared statement for q (prepared on the spot when q is not
// one of hotWrites, or the connection was replaced since).
func (db *DB) txStmt(ctx context.Context, tx *sql.Tx, q string) (*sql.Stmt, error) {
	if s, ok := db.wstmts[q]; ok {
		return tx.StmtContext(ctx, s), nil
	}
	return tx.PrepareContext(ctx, q)
}

// txExec runs q in tx through its prepared statement.
func (db *DB) txExec(ctx context.Context, tx *sql.Tx, q string, args ...any) (sql.Result, error) {
	s, err := db.txStmt(ctx, tx, q)
	if err != nil {
		return nil, err
	}
	return s.ExecContext(ctx, args...)
}
