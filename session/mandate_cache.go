package session

import (
	"context"
	"os"

	"cockpit/live"
	"cockpit/live/mandatefile"
)

// mandateSeen is the screen's last mandate check (DV13) and what it depended on: the bytes of
// mandate.json (their hash) and the audit trail (its last seq, which a commit moves).
type mandateSeen struct {
	hash  string
	seq   int64
	check live.MandateCheck
}

// mandateCheck is mandatefile.Read for the screen, once a second: while the file's bytes and
// the audit trail are unchanged it answers the last check again, without parsing the file
// and reading the ledger anew. Any change of either (an edit, a commit) reads it in full; a
// check that failed to read anything is never kept.
func (b *Backend) mandateCheck(ctx context.Context) live.MandateCheck {
	rt, key := b.s.rt, b.s.key
	seq, serr := rt.DB.LastSeq(ctx)
	if data, err := os.ReadFile(rt.Root.MandatePath(key)); err == nil && serr == nil {
		h := live.MandateHash(data)
		b.mu.Lock()
		seen := b.mandate
		b.mu.Unlock()
		if seen.hash == h && seen.seq == seq {
			return seen.check
		}
	}
	mc := mandatefile.Read(ctx, rt.Root, rt.DB, key)
	if serr == nil && mc.Err == nil && mc.Hash != "" {
		b.mu.Lock()
		b.mandate = mandateSeen{hash: mc.Hash, seq: seq, check: mc}
		b.mu.Unlock()
	}
	return mc
}
