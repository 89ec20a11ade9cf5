package live

import (
	"context"
	"time"
)

// OutcomeRecorder is a Journal that can write an order's outcome and its audit record in one
// durable transaction (one commit instead of two after the broker answers).
type OutcomeRecorder interface {
	FinishRecord(ctx context.Context, clientOrderID string, state JournalState, orderID, detail string, at time.Time, rec AuditRecord) error
}

// SinkWithout returns sink without the sink skip (nil when nothing is left) and whether skip
// was one of its sinks (sink itself, or a member of a MultiSink).
func SinkWithout(sink, skip AuditSink) (AuditSink, bool) {
	if sink == nil || skip == nil {
		return sink, false
	}
	if m, ok := sink.(MultiSink); ok {
		var rest MultiSink
		found := false
		for _, s := range m {
			if r, had := SinkWithout(s, skip); had {
				found = true
				if r != nil {
					rest = append(rest, r)
				}
				continue
			}
			rest = append(rest, s)
		}
		if !found {
			return sink, false
		}
		if len(rest) == 0 {
			return nil, true
		}
		return rest, true
	}
	if _, ok := skip.(MultiSink); ok {
		return sink, false
	}
	if same(sink, skip) {
		return nil, true
	}
	return sink, false
}

// same compares two sinks without panicking on uncomparable dynamic types.
func same(a, b AuditSink) (eq bool) {
	defer func() {
		if recover() != nil {
			eq = false
		}
	}()
	return a == b
}
