package store

import (
	"context"
	"time"
)

// EachEvent calls fn with the time and payload of every event of one type recorded since
// `since`, oldest first, reading a page of 1000 at a time.
func (db *DB) EachEvent(ctx context.Context, typ string, since time.Time, fn func(at time.Time, payload string)) error {
	var after int64
	for {
		evs, err := db.Events(ctx, Filter{Type: typ, Since: since, AfterSeq: after, Ascending: true, Limit: 1000})
		if err != nil {
			return err
		}
		for _, e := range evs {
			after = e.Seq
			fn(e.Time, e.Payload)
		}
		if len(evs) < 1000 {
			return nil
		}
	}
}
