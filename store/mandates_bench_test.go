package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"cockpit/live/livetest"
	"cockpit/live/mandatefile"
	"cockpit/store"
)

// BenchmarkLastMandateHash looks up the paper mandate's hash behind 1,000,000 other events
// (the commit is the oldest event, the worst case for a backwards walk): the gate does this on
// every order.
func BenchmarkLastMandateHash(b *testing.B) {
	ctx := context.Background()
	db, err := store.Open(filepath.Join(b.TempDir(), "cockpit.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	root := livetest.Root(b)
	livetest.CommitTo(b, db, root, "paper", "", livetest.Epoch)
	for i := 0; i < 100; i++ {
		evs := make([]store.Event, 10000)
		for k := range evs {
			evs[k] = store.Event{Type: []string{"order_placed", "breach", "tool_call"}[k%3], Outcome: "accepted", Broker: "paper",
				Summary: fmt.Sprintf("buy $%d AAPL (equity)", k), Payload: `{"intent":"x"}`}
		}
		if _, err := db.AppendBatch(ctx, evs); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if c := mandatefile.Read(ctx, root, db, "paper"); !c.Verified() {
			b.Fatalf("state %s (%v)", c.State, c.Err)
		}
	}
}
