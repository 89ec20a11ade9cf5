package store

import (
	"context"
	"database/sql"
	"time"

	"cockpit/live"
	"cockpit/live/money"
)

// nullable stores "" as NULL.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// largestNotional reads the notionals of one type's events of a broker since a time (sinceSeq
// keeps it to the events since then).
const largestNotional = `SELECT notional FROM events WHERE type = ? AND broker = ? AND ts >= ? AND ` + sinceSeq + ` AND notional IS NOT NULL`

// LargestNotional returns the largest notional of the orders placed at broker since the
// given time (zero when there are none), from the typed notional column of order events.
func (db *DB) LargestNotional(ctx context.Context, broker string, since time.Time) (money.Amount, error) {
	rows, err := db.readQuery(ctx, largestNotional, live.KindOrderPlaced, broker, since.UnixNano(), since.UnixNano())
	if err != nil {
		return money.Zero, err
	}
	defer rows.Close()
	largest := money.Zero
	for rows.Next() {
		var text sql.NullString
		if err := rows.Scan(&text); err != nil {
			return money.Zero, err
		}
		if a, err := money.Parse(text.String); err == nil && a.GreaterThan(largest) {
			largest = a
		}
	}
	return largest, rows.Err()
}
