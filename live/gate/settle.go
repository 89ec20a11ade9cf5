package gate

import (
	"context"

	"cockpit/live"
)

// settle writes the outcome of a forward: the journal outcome and the audit record, in one
// durable transaction when the journal is also the audit sink and can do both
// (live.OutcomeRecorder), else one after the other. The audit sinks other than the journal
// (a mirror) get the record after it. A failure trips the halt latch either way (DV15).
func (r *run) settle(ctx context.Context, state live.JournalState, orderID, detail, kind, outcome, errText string, response any) Decision {
	g := r.g
	rec, ok := g.Journal.(live.OutcomeRecorder)
	sink, isSink := g.Journal.(live.AuditSink)
	var rest live.AuditSink
	had := false
	if ok && isSink {
		rest, had = live.SinkWithout(g.Audit, sink)
	}
	if !had {
		r.finish(ctx, state, orderID, detail)
		return r.record(ctx, kind, outcome, errText, response)
	}
	ar := r.auditRecord(kind, outcome, errText, response)
	wctx := context.WithoutCancel(ctx)
	if err := rec.FinishRecord(wctx, r.req.ClientOrderID, state, orderID, detail, g.now(), ar); err != nil {
		r.d.AuditErr = err // the store names it: "journal outcome and audit record: …"
	}
	if rest != nil {
		if err := rest.Record(wctx, ar); err != nil && r.d.AuditErr == nil {
			r.d.AuditErr = err
		}
	}
	return r.audited(kind)
}
