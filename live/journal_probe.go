package live

import (
	"context"
	"errors"
)

// ErrAuditProbe marks a BeginProbed failure of the audit probe (not of the journal row).
var ErrAuditProbe = errors.New("audit probe failed")

// ProbingJournal is a Journal that can run the audit probe of its own store in the same
// transaction as the write-ahead row: one write-lock round trip per forward instead of two.
type ProbingJournal interface {
	Journal
	// ProbesFor reports whether sink is this journal's own store, so BeginProbed probes it.
	ProbesFor(sink AuditSink) bool
	// BeginProbed is the audit probe, then Begin, in one durable transaction; a failure of
	// the probe wraps ErrAuditProbe and writes no row.
	BeginProbed(ctx context.Context, e JournalEntry) error
}
