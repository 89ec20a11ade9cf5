package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/lots"
	"cockpit/live/money"
)

// Fill states in the fills table.
const (
	FillApplied    = "applied"    // matched against the FIFO lots
	FillDuplicate  = "duplicate"  // its order had filled that far already: a repeat, not applied
	FillUnpriced   = "unpriced"   // the broker gave no price: recorded, not applied
	FillUnreadable = "unreadable" // its record does not read as a fill (an import, a hand edit)
)

var _ live.FillLedger = (*DB)(nil)

// FillProgress implements live.FillLedger: the filled quantity and notional the trail holds
// of one order (zero when it holds none).
func (db *DB) FillProgress(ctx context.Context, broker, orderKey string) (live.FillProgress, error) {
	s, err := db.readStmt(ctx, `SELECT qty, notional FROM fill_orders WHERE broker = ? AND order_key = ?`)
	if err != nil {
		return live.FillProgress{}, wrap(err)
	}
	var q, n string
	switch err := s.QueryRowContext(ctx, broker, orderKey).Scan(&q, &n); {
	case errors.Is(err, sql.ErrNoRows):
		return live.FillProgress{}, nil
	case err != nil:
		return live.FillProgress{}, wrap(err)
	}
	qty, err1 := money.Parse(q)
	notional, err2 := money.Parse(n)
	if err := errors.Join(err1, err2); err != nil {
		return live.FillProgress{}, fmt.Errorf("fill_orders %s/%s: %w", broker, orderKey, err)
	}
	return live.FillProgress{Qty: qty, Notional: notional}, nil
}

// fillRow is one row of the fills table as written.
type fillRow struct {
	seq      int64 // the fill event's
	fill     live.Fill
	state    string
	realized money.Amount
	trips    []any
	pos      position
}

// position is a symbol's FIFO position: signed quantity, cost and carried fees.
type position struct{ qty, cost, fee money.Amount }

// deriveFill brings the tables derived from fill events up to date with e, a fill event just
// appended in tx. What the event holds decides, so the tables are a function of the trail; an
// event that does not read as a fill is kept as unreadable, never refused.
func (db *DB) deriveFill(ctx context.Context, tx *sql.Tx, e Event) error {
	row := fillRow{seq: e.Seq, state: FillUnreadable}
	if f, ok := fillOfEvent(e); ok {
		row.fill = f
		if err := db.applyFill(ctx, tx, &row); err != nil {
			return err
		}
	}
	f := row.fill
	price := ""
	if f.Price.Sign() > 0 {
		price = f.Price.String()
	}
	trips, _ := jsonv.Marshal(append([]any{}, row.trips...), jsonv.Compact)
	_, err := db.txExec(ctx, tx, `INSERT INTO fills (seq, ts, broker, symbol, side, qty, price, fee, order_id,
		client_order_id, state, realized, trips, pos_qty, pos_cost, pos_fee) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		e.Seq, e.Time.UnixNano(), e.Broker, f.Symbol, f.Side, f.Qty.String(), price, f.Fee.String(), e.OrderID,
		e.ClientOrderID, row.state, row.realized.String(), string(trips), row.pos.qty.String(), row.pos.cost.String(),
		row.pos.fee.String())
	return err
}

// fillOfEvent reads the fill an event records.
func fillOfEvent(e Event) (live.Fill, bool) {
	v, err := jsonv.ParseString(e.Payload, jsonv.Options{})
	if err != nil {
		return live.Fill{}, false
	}
	p, _ := v.(*jsonv.Object)
	if p == nil {
		return live.Fill{}, false
	}
	d, _ := p.Value("detail").(*jsonv.Object)
	f, ok := live.FillFromDetail(d)
	f.Broker, f.OrderID, f.ClientOrderID, f.Time = e.Broker, e.OrderID, e.ClientOrderID, e.Time
	return f, ok
}

// applyFill decides row's state, counts the fill against its order and, when it is a new
// priced fill, matches it against the symbol's FIFO lots.
func (db *DB) applyFill(ctx context.Context, tx *sql.Tx, row *fillRow) error {
	f := row.fill
	key := live.FillOrderKey(f.OrderID, f.ClientOrderID)
	if key != "" {
		prog, err := txProgress(ctx, db, tx, f.Broker, key)
		if err != nil {
			return err
		}
		if f.OrderFilled.Sign() > 0 && f.OrderFilled.Cmp(prog.Qty) <= 0 {
			row.state = FillDuplicate
			return nil
		}
		next := prog.Qty.Add(f.Qty)
		if f.OrderFilled.Sign() > 0 {
			next = f.OrderFilled
		}
		if _, err := db.txExec(ctx, tx, `INSERT INTO fill_orders (broker, order_key, qty, notional) VALUES (?,?,?,?)
			ON CONFLICT (broker, order_key) DO UPDATE SET qty = excluded.qty, notional = excluded.notional`,
			f.Broker, key, next.String(), prog.Notional.Add(f.Qty.Mul(f.Price)).String()); err != nil {
			return err
		}
	}
	if f.Price.Sign() <= 0 {
		row.state = FillUnpriced
		return nil
	}
	return db.matchLots(ctx, tx, row)
}

// txProgress is FillProgress inside the write transaction.
func txProgress(ctx context.Context, db *DB, tx *sql.Tx, broker, key string) (live.FillProgress, error) {
	s, err := db.txStmt(ctx, tx, `SELECT qty, notional FROM fill_orders WHERE broker = ? AND order_key = ?`)
	if err != nil {
		return live.FillProgress{}, err
	}
	var q, n string
	switch err := s.QueryRowContext(ctx, broker, key).Scan(&q, &n); {
	case errors.Is(err, sql.ErrNoRows):
		return live.FillProgress{}, nil
	case err != nil:
		return live.FillProgress{}, err
	}
	return live.FillProgress{Qty: parseOrZero(q), Notional: parseOrZero(n)}, nil
}

// matchLots applies row's fill to the symbol's open lots and position.
func (db *DB) matchLots(ctx context.Context, tx *sql.Tx, row *fillRow) error {
	f := row.fill
	pos, err := db.txPosition(ctx, tx, f.Broker, f.Symbol)
	if err != nil {
		return err
	}
	lf := lots.Fill{Seq: row.seq, Time: f.Time, Side: f.Side, Qty: f.Qty, Price: f.Price, Fee: f.Fee}
	var open []lots.Lot
	if closing := (f.Side == live.Buy && pos.qty.Sign() < 0) || (f.Side == live.Sell && pos.qty.Sign() > 0); closing {
		if open, err = db.txLots(ctx, tx, f.Broker, f.Symbol, f.Qty); err != nil {
			return err
		}
	}
	res, err := lots.Apply(open, lf)
	if err != nil { // an unknown side, or a book this store did not write
		row.state = FillUnreadable
		return nil
	}
	if err := db.writeLots(ctx, tx, f, open, res); err != nil {
		return err
	}
	row.pos = position{qty: pos.qty.Add(res.DQty), cost: pos.cost.Add(res.DCost), fee: pos.fee.Add(res.DFee)}
	if row.pos.qty.IsZero() { // flat: what rounding left in cost or fees went out with the trips
		row.pos = position{}
	}
	if _, err := db.txExec(ctx, tx, `INSERT INTO fill_symbols (broker, symbol, qty, cost, fee) VALUES (?,?,?,?,?)
		ON CONFLICT (broker, symbol) DO UPDATE SET qty = excluded.qty, cost = excluded.cost, fee = excluded.fee`,
		f.Broker, f.Symbol, row.pos.qty.String(), row.pos.cost.String(), row.pos.fee.String()); err != nil {
		return err
	}
	row.state, row.realized = FillApplied, res.Realized()
	for _, t := range res.Trips {
		row.trips = append(row.trips, tripJSON(t))
	}
	return nil
}

// txPosition is the symbol's FIFO position now (zero when it never filled).
func (db *DB) txPosition(ctx context.Context, tx *sql.Tx, broker, symbol string) (position, error) {
	s, err := db.txStmt(ctx, tx, `SELECT qty, cost, fee FROM fill_symbols WHERE broker = ? AND symbol = ?`)
	if err != nil {
		return position{}, err
	}
	var q, c, f string
	switch err := s.QueryRowContext(ctx, broker, symbol).Scan(&q, &c, &f); {
	case errors.Is(err, sql.ErrNoRows):
		return position{}, nil
	case err != nil:
		return position{}, err
	}
	return position{qty: parseOrZero(q), cost: parseOrZero(c), fee: parseOrZero(f)}, nil
}

// txLots reads the symbol's open lots oldest first, as many as it takes to cover qty (a page
// at a time), so a fill reads the lots it closes and not the whole book.
func (db *DB) txLots(ctx context.Context, tx *sql.Tx, broker, symbol string, qty money.Amount) ([]lots.Lot, error) {
	s, err := db.txStmt(ctx, tx, `SELECT seq, ts, qty, price, fee FROM fill_lots
		WHERE broker = ? AND symbol = ? AND seq > ? ORDER BY seq LIMIT 64`)
	if err != nil {
		return nil, err
	}
	var out []lots.Lot
	covered, after := money.Zero, int64(-1)
	for covered.Cmp(qty) < 0 {
		n, err := scanLots(ctx, s, broker, symbol, after, &out)
		if err != nil || n == 0 {
			return out, err
		}
		for _, l := range out[len(out)-n:] {
			covered, after = covered.Add(l.Qty.Abs()), l.Seq
		}
	}
	return out, nil
}

// scanLots appends one page of lots after seq to out and says how many it read.
func scanLots(ctx context.Context, s *sql.Stmt, broker, symbol string, after int64, out *[]lots.Lot) (int, error) {
	rows, err := s.QueryContext(ctx, broker, symbol, after)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var l lots.Lot
		var ts int64
		var q, p, f string
		if err := rows.Scan(&l.Seq, &ts, &q, &p, &f); err != nil {
			return n, err
		}
		l.Time, l.Qty, l.Price, l.Fee = time.Unix(0, ts).UTC(), parseOrZero(q), parseOrZero(p), parseOrZero(f)
		*out = append(*out, l)
		n++
	}
	return n, rows.Err()
}

// writeLots stores what res did to the lots read (closed ones deleted, a reduced one
// updated) and the lot it opened.
func (db *DB) writeLots(ctx context.Context, tx *sql.Tx, f live.Fill, read []lots.Lot, res lots.Result) error {
	left := map[int64]lots.Lot{}
	for _, l := range res.Left {
		left[l.Seq] = l
	}
	for _, l := range read {
		var err error
		if now, ok := left[l.Seq]; !ok {
			_, err = db.txExec(ctx, tx, `DELETE FROM fill_lots WHERE broker = ? AND symbol = ? AND seq = ?`, f.Broker, f.Symbol, l.Seq)
		} else if now.Qty.Cmp(l.Qty) != 0 {
			_, err = db.txExec(ctx, tx, `UPDATE fill_lots SET qty = ?, fee = ? WHERE broker = ? AND symbol = ? AND seq = ?`,
				now.Qty.String(), now.Fee.String(), f.Broker, f.Symbol, l.Seq)
		}
		if err != nil {
			return err
		}
	}
	if o := res.Opened; o != nil {
		_, err := db.txExec(ctx, tx, `INSERT INTO fill_lots (broker, symbol, seq, ts, qty, price, fee) VALUES (?,?,?,?,?,?,?)`,
			f.Broker, f.Symbol, o.Seq, o.Time.UnixNano(), o.Qty.String(), o.Price.String(), o.Fee.String())
		return err
	}
	return nil
}

// tripJSON is a round trip as the fills table keeps it (its closing fill is the row's).
func tripJSON(t lots.Trip) *jsonv.Object {
	return jsonv.ObjectOf("qty", jsonv.Number(t.Qty.String()), "long", t.Long, "open_seq", jsonv.Number(fmt.Sprint(t.OpenSeq)),
		"open_ts", jsonv.Number(fmt.Sprint(t.OpenTime.UnixNano())), "open_price", jsonv.Number(t.OpenPrice.String()),
		"close_price", jsonv.Number(t.ClosePrice.String()), "fees", jsonv.Number(t.Fees.String()),
		"gross", jsonv.Number(t.Gross.String()), "net", jsonv.Number(t.Net.String()))
}

// parseOrZero reads a decimal this store wrote; anything else is zero.
func parseOrZero(s string) money.Amount {
	a, err := money.Parse(s)
	if err != nil {
		return money.Zero
	}
	return a
}

// rebuildFills derives the fill tables from every fill event already in the trail (migration
// 9: a trail written before them, or imported).
func (db *DB) rebuildFills(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT `+eventColumns+` FROM events WHERE type = ? ORDER BY seq`, live.KindFill)
	if err != nil {
		return err
	}
	var evs []Event
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			rows.Close()
			return err
		}
		evs = append(evs, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, e := range evs {
		if err := db.deriveFill(ctx, tx, e); err != nil {
			return err
		}
	}
	return nil
}
