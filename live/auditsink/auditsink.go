// Package auditsink holds the audit record's redaction for storage and an in-memory audit
// sink (tests, the conformance runner, before a store is attached) that keeps redacted copies
// and answers as a mandate ledger.
package auditsink

import (
	"context"
	"fmt"
	"sync"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/redact"
)

var _ live.MandateLedger = (*Memory)(nil)

// Memory is an in-memory AuditSink (tests, and before a store is attached). It keeps
// redacted copies, as a durable sink would.
type Memory struct {
	mu      sync.Mutex
	records []live.AuditRecord
}

// Record implements AuditSink.
func (m *Memory) Record(_ context.Context, r live.AuditRecord) error {
	r = Redact(r)
	m.mu.Lock()
	m.records = append(m.records, r)
	m.mu.Unlock()
	return nil
}

// Records returns a copy of the records so far.
func (m *Memory) Records() []live.AuditRecord {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]live.AuditRecord(nil), m.records...)
}

// Redact returns r with its JSON payloads and texts redacted for storage.
func Redact(r live.AuditRecord) live.AuditRecord {
	r.Request = redactAny(r.Request)
	r.Response = redactAny(r.Response)
	r.Detail = redactAny(r.Detail)
	r.Error = redact.Secrets(r.Error)
	r.Intent = redact.Secrets(r.Intent)
	return r
}

func redactAny(v any) any {
	if v == nil {
		return nil
	}
	return redact.ForStorage(toJSONValue(v))
}

// LastMandateHash implements live.MandateLedger from the records kept in memory.
func (m *Memory) LastMandateHash(_ context.Context, broker string) (string, bool, error) {
	recs := m.Records()
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		if r.Kind == live.KindMandateCommitted && r.Broker == broker && r.Outcome == live.OutcomeAccepted {
			h, ok := live.MandateHashOf(r.Detail)
			return h, ok, nil
		}
	}
	return "", false, nil
}

// toJSONValue turns a Go value into ordered JSON values for redaction and storage.
func toJSONValue(v any) any {
	j, err := jsonv.FromGo(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return j
}
