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

// agentOrders reads the notional and approval of one type's events of a broker by one kind of
// actor since a time (sinceSeq keeps it to the events since then).
const agentOrders = `SELECT notional, approval_id FROM events WHERE type = ? AND broker = ? AND actor_kind = ? AND ts >= ? AND ` +
	sinceSeq + ` AND notional IS NOT NULL ORDER BY seq`

// AgentOrdersSince reads DayOrders from the typed notional column of the agent's order events
// at broker since the given time, whatever their summary text says. It reads only the events
// since then (sinceSeq), so its cost does not grow with the trail.
func (db *DB) AgentOrdersSince(ctx context.Context, broker string, since time.Time) (DayOrders, error) {
	d := DayOrders{Largest: money.Zero, Last: money.Zero}
	rows, err := db.readQuery(ctx, agentOrders, live.KindOrderPlaced, broker, string(live.ActorAgent), since.UnixNano(), since.UnixNano())
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
