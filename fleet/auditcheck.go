package fleet

import (
	"context"
	"encoding/json"
	"fmt"
)

// Marks of a checked audit entry.
const (
	MarkOK        = "ok"
	MarkForged    = "FORGED"  // its hash, its signature or its subject does not check out
	MarkGap       = "GAP"     // records of its host are missing before it
	MarkDuplicate = "DUP"     // the same event again (a republished trail)
	MarkRestart   = "RESTART" // its host's chain starts again (audit rotate, a new database)
)

// Rehash recomputes an event's chain hash as `audit verify` does and returns the seq and
// prev_hash it holds (the store's HashEvent: the fleet does not import the store).
type Rehash func(event json.RawMessage) (seq int64, prev, hash string, err error)

// CheckedEntry is an audit entry and what checking it found.
type CheckedEntry struct {
	AuditEntry
	Mark string
	Why  string
}

// CheckAudit checks each entry of a tail against its host's chain: the event must hash to
// the entry's hash with the entry's seq and prev_hash, the host's key must have signed it,
// it must sit on its host's own subject, and it must follow that host's previous entry
// (seq+1, prev_hash = its hash). fromHead says the tail starts at the stream's first
// message (a host's first entry must then be its trail's seq 1). local, when set, is this
// host's own trail: an entry of this host that differs from it is forged.
func (f *Fleet) CheckAudit(ctx context.Context, tail AuditTail, rehash Rehash, local func(seq int64) (hash string, ok bool)) []CheckedEntry {
	out := make([]CheckedEntry, 0, len(tail.Entries))
	last := map[string]AuditEntry{}
	for _, e := range tail.Entries {
		c := CheckedEntry{AuditEntry: e, Mark: MarkOK}
		if why := f.forged(ctx, e, rehash, local); why != "" {
			c.Mark, c.Why = MarkForged, why
			out = append(out, c)
			continue
		}
		prev, seen := last[e.Host]
		switch {
		case !seen && tail.FromHead && e.Seq != 1:
			c.Mark, c.Why = MarkGap, fmt.Sprintf("the stream starts %s's trail at seq %d: seq 1 to %d are missing", e.Host, e.Seq, e.Seq-1)
		case !seen:
		case e.Seq == prev.Seq && e.Hash == prev.Hash:
			c.Mark, c.Why = MarkDuplicate, "the same event again"
		case e.Seq == prev.Seq+1 && e.Prev == prev.Hash:
		case e.Seq == 1:
			c.Mark, c.Why = MarkRestart, fmt.Sprintf("%s's chain starts again after seq %d (audit rotate, or a new database)", e.Host, prev.Seq)
		case e.Seq == prev.Seq+1:
			c.Mark, c.Why = MarkForged, fmt.Sprintf("its prev_hash does not link to seq %d's hash: the chain was forked", prev.Seq)
		case e.Seq > prev.Seq+1:
			c.Mark, c.Why = MarkGap, fmt.Sprintf("seq %d to %d of %s's trail are missing", prev.Seq+1, e.Seq-1, e.Host)
		default:
			c.Mark, c.Why = MarkForged, fmt.Sprintf("seq %d after seq %d with another hash: the chain was rewritten", e.Seq, prev.Seq)
		}
		if c.Mark != MarkForged {
			last[e.Host] = e
		}
		out = append(out, c)
	}
	return out
}

// forged says why an entry is not its host's genuine event ("" when it is).
func (f *Fleet) forged(ctx context.Context, e AuditEntry, rehash Rehash, local func(int64) (string, bool)) string {
	if e.Host == "" || e.Hash == "" {
		return "not an audit entry"
	}
	if h := subjectHost(e.Subject); h != e.Host {
		return fmt.Sprintf("it claims host %q but was published on %s", e.Host, e.Subject)
	}
	seq, prev, hash, err := rehash(e.Event)
	switch {
	case err != nil:
		return "its event is unreadable: " + err.Error()
	case seq != e.Seq || prev != e.Prev:
		return fmt.Sprintf("its event is seq %d, not the entry's seq %d", seq, e.Seq)
	case hash != e.Hash:
		return "its event does not hash to the entry's hash"
	}
	if err := f.verifyBy(ctx, e.Host, e.input(), e.Sig); err != nil {
		return err.Error()
	}
	if local != nil && e.Host == f.host {
		if h, ok := local(e.Seq); ok && h != e.Hash {
			return fmt.Sprintf("this host's own trail has another event at seq %d", e.Seq)
		}
	}
	return ""
}
