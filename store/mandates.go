package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"cockpit/live"
	"cockpit/live/jsonv"
)

var _ live.MandateLedger = (*DB)(nil)

// LastMandateHash implements live.MandateLedger from the audit chain: the mandate_sha256 of
// the newest accepted mandate_committed event for broker (DV13). The events_type index
// (type, seq) makes this a short backwards walk over commits only, whatever the chain's length.
// Every order asks, so the walk reads only the commit's seq and the commit's hash is kept by
// seq: a commit's row is never rewritten, and a newer commit has a newer seq.
func (db *DB) LastMandateHash(ctx context.Context, broker string) (string, bool, error) {
	s, err := db.readStmt(ctx, lastMandateSeq)
	if err != nil {
		return "", false, wrap(err)
	}
	var seq int64
	err = s.QueryRowContext(ctx, live.KindMandateCommitted, broker, live.OutcomeAccepted).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, wrap(err)
	}
	if h, ok := db.mandates.get(broker, seq); ok {
		return h.hash, h.ok, nil
	}
	e, err := db.Event(ctx, seq)
	if err != nil {
		return "", false, err
	}
	doc, err := jsonv.ParseString(e.Payload, jsonv.Options{})
	if err != nil {
		return "", false, fmt.Errorf("mandate commit record: %w", err)
	}
	h := ledgerHash{seq: seq}
	if o, _ := doc.(*jsonv.Object); o != nil {
		detail, _ := o.Get("detail")
		h.hash, h.ok = live.MandateHashOf(detail)
	}
	db.mandates.put(broker, h)
	return h.hash, h.ok, nil
}

// lastMandateSeq finds the newest accepted commit of a broker's mandate.
const lastMandateSeq = `SELECT seq FROM events WHERE type = ? AND broker = ? AND outcome = ?
		ORDER BY seq DESC LIMIT 1`

// ledgerHash is what a commit's record says: its mandate hash, if it names one.
type ledgerHash struct {
	seq  int64
	hash string
	ok   bool
}

// ledgerCache keeps each broker's last commit read, by the commit's seq.
type ledgerCache struct {
	mu     sync.Mutex
	byName map[string]ledgerHash
}

func (c *ledgerCache) get(broker string, seq int64) (ledgerHash, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.byName[broker]
	return h, ok && h.seq == seq
}

func (c *ledgerCache) put(broker string, h ledgerHash) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byName == nil {
		c.byName = map[string]ledgerHash{}
	}
	c.byName[broker] = h
}
