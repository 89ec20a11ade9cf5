package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"cockpit/live/lots"
	"cockpit/live/money"
)

// MaxPnLDays bounds DailyPnL's range.
const MaxPnLDays = 366

// OpenPosition is a FIFO position open at a day's end, marked at its symbol's last fill price.
type OpenPosition struct {
	Broker     string
	Symbol     string
	Qty        money.Amount // signed
	Mark       money.Amount // the price of the symbol's last fill up to the day's end
	MarkTime   time.Time    // that fill's time
	Unrealized money.Amount // Qty × Mark − cost − the opening fees it carries
}

// DayPnL is one UTC day's P&L from the audit trail's fills.
type DayPnL struct {
	Day        time.Time    // midnight UTC
	Fills      int          // fills recorded that day
	Realized   money.Amount // net of fees, of the round trips (FIFO) the day's fills closed
	Fees       money.Amount // paid on the day's fills
	Unrealized money.Amount // at the day's end: Σ of Open
	Open       []OpenPosition
	NotApplied int // fills of the day the lots left out (repeats, unpriced, unreadable)
}

const (
	fillsInRange = `SELECT ts, fee, state, realized FROM fills WHERE ts >= ? AND ts < ? AND (? = '' OR broker = ?)`
	fillSymbols  = `SELECT broker, symbol FROM fill_symbols WHERE (? = '' OR broker = ?) ORDER BY broker, symbol`
	lastFillAt   = `SELECT ts, price, pos_qty, pos_cost, pos_fee FROM fills
		WHERE broker = ? AND symbol = ? AND ts < ? AND state = 'applied' ORDER BY ts DESC LIMIT 1`
)

// DailyPnL returns the P&L of the days UTC days that end with last's (oldest first), of broker
// or of every broker when it is "": realised from the round trips each day's fills closed, and
// unrealised at each day's end with every open position marked at its symbol's last fill price
// (the trail records fills, not quotes). Its reads are one indexed range of the days' fills and
// one indexed lookup per symbol and day.
func (db *DB) DailyPnL(ctx context.Context, last time.Time, days int, broker string) ([]DayPnL, error) {
	if days < 1 || days > MaxPnLDays {
		return nil, fmt.Errorf("days = %d: want 1 to %d", days, MaxPnLDays)
	}
	end := UTCDay(last).AddDate(0, 0, 1)
	start := end.AddDate(0, 0, -days)
	out := make([]DayPnL, days)
	for i := range out {
		out[i] = DayPnL{Day: start.AddDate(0, 0, i), Open: []OpenPosition{}}
	}
	if err := db.realizedByDay(ctx, start, end, broker, out); err != nil {
		return nil, err
	}
	syms, err := db.fillSymbols(ctx, broker)
	if err != nil {
		return nil, err
	}
	for i := range out {
		dayEnd := out[i].Day.AddDate(0, 0, 1)
		for _, s := range syms {
			p, ok, err := db.openAt(ctx, s[0], s[1], dayEnd)
			if err != nil {
				return nil, err
			}
			if ok {
				out[i].Open = append(out[i].Open, p)
				out[i].Unrealized = out[i].Unrealized.Add(p.Unrealized)
			}
		}
	}
	return out, nil
}

// realizedByDay adds the fills of [start, end) into their days of out.
func (db *DB) realizedByDay(ctx context.Context, start, end time.Time, broker string, out []DayPnL) error {
	rows, err := db.readQuery(ctx, fillsInRange, start.UnixNano(), end.UnixNano(), broker, broker)
	if err != nil {
		return wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		var ts int64
		var fee, state, realized string
		if err := rows.Scan(&ts, &fee, &state, &realized); err != nil {
			return wrap(err)
		}
		d := &out[int(time.Unix(0, ts).UTC().Sub(start)/(24*time.Hour))]
		d.Fills++
		d.Fees = d.Fees.Add(parseOrZero(fee))
		if state != FillApplied {
			d.NotApplied++
			continue
		}
		d.Realized = d.Realized.Add(parseOrZero(realized))
	}
	return wrap(rows.Err())
}

// fillSymbols lists every (broker, symbol) that ever filled.
func (db *DB) fillSymbols(ctx context.Context, broker string) ([][2]string, error) {
	rows, err := db.readQuery(ctx, fillSymbols, broker, broker)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var b, s string
		if err := rows.Scan(&b, &s); err != nil {
			return nil, wrap(err)
		}
		out = append(out, [2]string{b, s})
	}
	return out, wrap(rows.Err())
}

// openAt is the symbol's FIFO position after its last fill before t, marked at that fill's
// price; false when it was flat (or had not filled yet).
func (db *DB) openAt(ctx context.Context, broker, symbol string, t time.Time) (OpenPosition, bool, error) {
	s, err := db.readStmt(ctx, lastFillAt)
	if err != nil {
		return OpenPosition{}, false, wrap(err)
	}
	var ts int64
	var px, q, c, f string
	switch err := s.QueryRowContext(ctx, broker, symbol, t.UnixNano()).Scan(&ts, &px, &q, &c, &f); {
	case errors.Is(err, sql.ErrNoRows):
		return OpenPosition{}, false, nil
	case err != nil:
		return OpenPosition{}, false, wrap(err)
	}
	p := OpenPosition{Broker: broker, Symbol: symbol, Qty: parseOrZero(q), Mark: parseOrZero(px), MarkTime: time.Unix(0, ts).UTC()}
	if p.Qty.IsZero() {
		return OpenPosition{}, false, nil
	}
	p.Unrealized = lots.Unrealized(p.Qty, parseOrZero(c), parseOrZero(f), p.Mark)
	return p, true, nil
}
