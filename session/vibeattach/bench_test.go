package vibeattach

import (
	"context"
	"fmt"
	"testing"

	"cockpit/live/jsonv"
	"cockpit/live/livetest"
	"cockpit/live/vibe"
)

// BenchmarkSnapshot: one screen refresh over a root whose chain already holds n records (the
// first snapshot, outside the timer, verifies them all); the refresh verifies only what was
// appended, so its cost does not grow with the chain.
func BenchmarkSnapshot(b *testing.B) {
	for _, n := range []int{1000, 20000} {
		b.Run(fmt.Sprintf("chain=%d", n), func(b *testing.B) {
			root := livetest.Root(b)
			clock := livetest.NewClock(livetest.Epoch)
			livetest.Commit(b, root, broker, "", clock.Now())
			m := &vibe.Mirror{Root: root}
			var payloads []*jsonv.Object
			for i := range n {
				payloads = append(payloads, jsonv.ObjectOf("audit_id", fmt.Sprintf("la_%d", i), "kind", "order_placed",
					"outcome", "accepted", "server", broker, "intent_normalized", "buy 1 AAPL"))
			}
			if err := m.AppendPayloads(payloads); err != nil {
				b.Fatal(err)
			}
			be := New(Options{Root: root, Broker: broker, Now: clock.Now})
			if s := be.Snapshot(context.Background()); len(s.Faults) != 0 || s.AuditTotal != int64(n) {
				b.Fatalf("fixture: faults %q total %d", s.Faults, s.AuditTotal)
			}
			b.ResetTimer()
			for range b.N {
				be.Snapshot(context.Background())
			}
		})
	}
}
