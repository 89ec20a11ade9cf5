package metrics

import (
	"context"
	"testing"
	"time"

	"cockpit/live"
)

// BenchmarkDecision is what the gate's OnDecision hook adds to an order: one labelled counter
// and one histogram observation.
func BenchmarkDecision(b *testing.B) {
	m := New()
	t0 := time.Now()
	end := t0.Add(2 * time.Millisecond)
	b.ReportAllocs()
	for b.Loop() {
		m.Decision("paper", live.Deny, live.ReasonHalted, t0, end)
	}
}

// BenchmarkSinkRecord is what the metrics' audit sink adds to each audit record of an order.
func BenchmarkSinkRecord(b *testing.B) {
	s := Sink{M: New()}
	rec := live.AuditRecord{Kind: live.KindOrderPlaced, Outcome: live.OutcomeAccepted, Reason: ""}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Record(ctx, rec)
	}
}

// BenchmarkDecisionParallel is the hook under concurrent orders (the counters are atomic).
func BenchmarkDecisionParallel(b *testing.B) {
	m := New()
	t0 := time.Now()
	end := t0.Add(2 * time.Millisecond)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.Decision("paper", live.Allow, "", t0, end)
		}
	})
}
