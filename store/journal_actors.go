package store

import (
	"context"
	"strings"
)

// JournalActors returns who placed each of the given client order ids on broker, as
// "kind:id", by key (the journal's primary key): the cost follows the ids asked for, not the
// journal's length. Ids the journal does not hold are left out. The screen names the placer
// of each open order with it (before, it read every accepted row the journal ever held).
func (db *DB) JournalActors(ctx context.Context, broker string, clientOrderIDs []string) (map[string]string, error) {
	out := make(map[string]string, len(clientOrderIDs))
	for len(clientOrderIDs) > 0 {
		chunk := clientOrderIDs[:min(len(clientOrderIDs), 500)]
		clientOrderIDs = clientOrderIDs[len(chunk):]
		args := make([]any, 0, len(chunk)+1)
		args = append(args, broker)
		for _, id := range chunk {
			args = append(args, id)
		}
		rows, err := db.r.QueryContext(ctx, actorsQuery(len(chunk)), args...)
		if err != nil {
			return nil, wrap(err)
		}
		for rows.Next() {
			var id, kind, actor string
			if err := rows.Scan(&id, &kind, &actor); err != nil {
				rows.Close()
				return nil, wrap(err)
			}
			out[id] = kind + ":" + actor
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, wrap(err)
		}
	}
	return out, nil
}

// actorsQuery looks up n client order ids of one broker by the journal's key.
func actorsQuery(n int) string {
	return `SELECT client_order_id, actor_kind, actor_id FROM order_journal WHERE broker = ? AND client_order_id IN (?` +
		strings.Repeat(",?", n-1) + `)`
}
