package store

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCache holds the read pool's prepared statements by query text: the screen's snapshot
// runs the same few queries every second, and parsing them was a tenth of an idle cockpit's
// CPU.
type stmtCache struct {
	mu     sync.Mutex
	stmts  map[string]*sql.Stmt
	closed bool
}

// readStmt returns the read pool's statement for q, prepared once.
func (db *DB) readStmt(ctx context.Context, q string) (*sql.Stmt, error) {
	c := &db.stmts
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.stmts[q]; ok {
		return s, nil
	}
	if c.closed {
		return nil, sql.ErrConnDone
	}
	s, err := db.r.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if c.stmts == nil {
		c.stmts = map[string]*sql.Stmt{}
	}
	c.stmts[q] = s
	return s, nil
}

// readQuery runs a read through the prepared statement of q.
func (db *DB) readQuery(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	s, err := db.readStmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(ctx, args...)
}

// closeStmts closes the prepared statements; later reads fail.
func (db *DB) closeStmts() {
	c := &db.stmts
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.stmts {
		s.Close()
	}
	c.stmts, c.closed = nil, true
}
