package store

import (
	"context"
	"database/sql"
	"time"

	"cockpit/live"
	"cockpit/live/money"
)

// DayOrders is what a window shows of the agent's orders placed at one broker since a time:
// the largest and the last notional, and how many went through on a human's approval.
type DayOrders struct {
	Largest  money.Amount
	Last     money.Amount
	Approved int
}

// AgentOrdersSince reads DayOrders from the typed notional column of the agent's order events
// at broker since the given time. It reads only that day's events (the first event at or after
// since is found through the time index), so its cost does not grow with the trail.
func (db *DB) AgentOrdersSince(ctx context.Context, broker string, since time.Time) (DayOrders, error) {
	d := DayOrders{Largest: money.Zero, Last: money.Zero}
	rows, err := db.readQuery(ctx, `SELECT notional, approval_id FROM events
		WHERE type = ? AND seq >= (SELECT IFNULL(MIN(seq), 9223372036854775807) FROM events WHERE ts >= ?)
		AND broker = ? AND actor_kind = ? AND notional IS NOT NULL ORDER BY seq`,
		live.KindOrderPlaced, since.UnixNano(), broker, string(live.ActorAgent))
	if err != nil {
		return d, wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		var text sql.NullString
		var approval string
		if err := rows.Scan(&text, &approval); err != nil {
			return d, wrap(err)
		}
		a, err := money.Parse(text.String)
		if err != nil {
			continue
		}
		d.Last = a
		if a.GreaterThan(d.Largest) {
			d.Largest = a
		}
		if approval != "" {
			d.Approved++
		}
	}
	return d, wrap(rows.Err())
}
