package gate

import (
	"context"
	"errors"
	"fmt"

	"cockpit/live"
)

// writeAhead asks the audit sink whether a record can be written (DV15: no record, no trade)
// and writes the journal's durable write-ahead row. When the journal is the audit sink's own
// store, the probe runs inside the row's transaction: one round trip instead of two. A
// failure latches the halt, except a caller that gave up, which is refused as cancelled.
func (g *Gate) writeAhead(ctx context.Context, entry live.JournalEntry) *live.Denial {
	pj, _ := g.Journal.(live.ProbingJournal)
	folded, err := g.probeAudit(ctx, pj)
	if err != nil {
		return g.auditUnwritable(ctx, err)
	}
	if folded {
		err = pj.BeginProbed(ctx, entry)
		if errors.Is(err, live.ErrAuditProbe) {
			return g.auditUnwritable(ctx, err)
		}
	} else {
		err = g.Journal.Begin(ctx, entry)
	}
	if err != nil {
		if gaveUp(ctx, err) { // the caller gave up waiting for the write: nothing is sent
			return live.NewDenial(live.ReasonCancelled, "error", err.Error())
		}
		g.TripAuditHalt(fmt.Errorf("write-ahead journal: %w", err))
		return live.NewDenial(live.ReasonJournal, "error", err.Error())
	}
	return nil
}

func (g *Gate) auditUnwritable(ctx context.Context, err error) *live.Denial {
	if gaveUp(ctx, err) {
		return live.NewDenial(live.ReasonCancelled, "error", err.Error())
	}
	g.TripAuditHalt(fmt.Errorf("audit sink not writable: %w", err))
	return live.NewDenial(live.ReasonAuditUnavailable, "error", err.Error())
}

// probeAudit probes every audit sink that can be probed, except the one pj probes itself in
// BeginProbed (folded is then true).
func (g *Gate) probeAudit(ctx context.Context, pj live.ProbingJournal) (folded bool, err error) {
	if g.Audit == nil {
		return false, fmt.Errorf("no audit sink attached")
	}
	sinks := []live.AuditSink{g.Audit}
	if m, ok := g.Audit.(live.MultiSink); ok {
		sinks = m
	}
	for _, s := range sinks {
		if pj != nil && pj.ProbesFor(s) {
			folded = true
			continue
		}
		if p, ok := s.(live.AuditProber); ok {
			if err := p.ProbeAudit(context.WithoutCancel(ctx)); err != nil {
				return false, err
			}
		}
	}
	return folded, nil
}
