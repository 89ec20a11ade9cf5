package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"cockpit/live"
	"cockpit/live/jsonv"
)

var _ live.MandateLedger = (*DB)(nil)

// LastMandateHash implements live.MandateLedger from the audit chain: the mandate_sha256 of
// the newest accepted mandate_committed event for broker (DV13). The events_type index
// (type, seq) makes this a short backwards walk over commits only, whatever the chain's length.
func (db *DB) LastMandateHash(ctx context.Context, broker string) (string, bool, error) {
	var payload string
	err := db.r.QueryRowContext(ctx, `SELECT payload FROM events WHERE type = ? AND broker = ? AND outcome = ?
		ORDER BY seq DESC LIMIT 1`, live.KindMandateCommitted, broker, live.OutcomeAccepted).Scan(&payload)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, wrap(err)
	}
	doc, err := jsonv.Parse([]byte(payload), jsonv.Options{})
	if err != nil {
		return "", false, fmt.Errorf("mandate commit record: %w", err)
	}
	o, _ := doc.(*jsonv.Object)
	if o == nil {
		return "", false, nil
	}
	detail, _ := o.Get("detail")
	h, ok := live.MandateHashOf(detail)
	return h, ok, nil
}
