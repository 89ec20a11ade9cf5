package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"cockpit/live/paper"
)

// The paper account's statements (migration 0009): a change upserts the header and the rows
// it touched; a lookup and a restart read by key.
const (
	paperHeaderUpsert = `INSERT INTO paper_accounts (broker, state, updated_at) VALUES (?, ?, ?)
		ON CONFLICT(broker) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`
	paperOrderUpsert = `INSERT INTO paper_orders (broker, id, client_order_id, open, body) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT(broker, id) DO UPDATE SET client_order_id = excluded.client_order_id, open = excluded.open, body = excluded.body`
	paperPositionUpsert = `INSERT INTO paper_positions (broker, symbol, body) VALUES (?, ?, ?)
		ON CONFLICT(broker, symbol) DO UPDATE SET body = excluded.body`
	paperOrderByID = `SELECT body FROM paper_orders WHERE broker = ? AND id = ?`
	// Without INDEXED BY, SQLite's planner (no statistics) walks the primary key's broker
	// prefix, every order the account ever had, rather than these indexes.
	paperOrderByClient = `SELECT body FROM paper_orders INDEXED BY paper_orders_client
		WHERE broker = ? AND client_order_id = ? AND client_order_id <> ''`
	paperOpenOrders = `SELECT body FROM paper_orders INDEXED BY paper_orders_open WHERE broker = ? AND open = 1 ORDER BY id`
)

// PaperStore is broker's paper account in this store, saved change by change.
func (db *DB) PaperStore(broker string) paper.Store { return paperStore{db: db, broker: broker} }

type paperStore struct {
	db     *DB
	broker string
}

func (s paperStore) Save(c paper.Change) error {
	return s.db.SavePaperChange(context.Background(), s.broker, c)
}

func (s paperStore) OrderByID(id string) ([]byte, bool, error) {
	return s.db.paperOrder(context.Background(), paperOrderByID, s.broker, id)
}

func (s paperStore) OrderByClientID(cid string) ([]byte, bool, error) {
	return s.db.paperOrder(context.Background(), paperOrderByClient, s.broker, cid)
}

// SavePaperChange stores one change of broker's paper account, durably, in one transaction
// (shared with concurrent writers): the header and each order and position it carries.
func (db *DB) SavePaperChange(ctx context.Context, broker string, c paper.Change) error {
	err := db.txGroup(ctx, func(tx *sql.Tx) (Head, error) {
		wctx := context.WithoutCancel(ctx)
		exec := func(q string, args ...any) error { _, err := db.txExec(wctx, tx, q, args...); return err }
		if err := exec(paperHeaderUpsert, broker, string(c.Header), db.now().UnixNano()); err != nil {
			return Head{}, err
		}
		return Head{}, writePaperRows(exec, broker, c)
	})
	if err != nil {
		return fmt.Errorf("save the paper account: %w", err)
	}
	return nil
}

// writePaperRows upserts the orders and positions of a change through exec.
func writePaperRows(exec func(q string, args ...any) error, broker string, c paper.Change) error {
	for _, o := range c.Orders {
		open := 0
		if o.Open {
			open = 1
		}
		if err := exec(paperOrderUpsert, broker, o.ID, o.ClientOrderID, open, string(o.Data)); err != nil {
			return err
		}
	}
	for _, p := range c.Positions {
		if err := exec(paperPositionUpsert, broker, p.Symbol, string(p.Data)); err != nil {
			return err
		}
	}
	return nil
}

// paperOrder reads one saved order by key (an index lookup, whatever the account's history).
func (db *DB) paperOrder(ctx context.Context, q, broker, key string) ([]byte, bool, error) {
	s, err := db.readStmt(ctx, q)
	if err != nil {
		return nil, false, wrap(err)
	}
	var body string
	err = s.QueryRowContext(ctx, broker, key).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, wrap(err)
	}
	return []byte(body), true, nil
}

// LoadPaper returns broker's saved paper account as a restart takes it: the header, the open
// orders and the positions (settled orders stay in the store); found is false when there is
// none.
func (db *DB) LoadPaper(ctx context.Context, broker string) (*paper.State, bool, error) {
	var head string
	err := db.r.QueryRowContext(ctx, `SELECT state FROM paper_accounts WHERE broker = ?`, broker).Scan(&head)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, wrap(err)
	}
	orders, err := db.paperRows(ctx, paperOpenOrders, broker)
	if err != nil {
		return nil, false, err
	}
	positions := map[string][]byte{}
	rows, err := db.r.QueryContext(ctx, `SELECT symbol, body FROM paper_positions WHERE broker = ?`, broker)
	if err != nil {
		return nil, false, wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		var sym, body string
		if err := rows.Scan(&sym, &body); err != nil {
			return nil, false, wrap(err)
		}
		positions[sym] = []byte(body)
	}
	if err := rows.Err(); err != nil {
		return nil, false, wrap(err)
	}
	st, err := paper.Restore([]byte(head), orders, positions)
	if err != nil {
		return nil, true, fmt.Errorf("the stored paper account %s is unreadable: %w", broker, err)
	}
	return st, true, nil
}

// paperRows reads one body column.
func (db *DB) paperRows(ctx context.Context, q string, args ...any) ([][]byte, error) {
	rows, err := db.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return nil, wrap(err)
		}
		out = append(out, []byte(body))
	}
	return out, wrap(rows.Err())
}
