package readmodel_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/readmodel"
	"cockpit/store"
)

// TestUnreadableCountIsNotZero: when neither the counter file nor the journal can be read the
// gate denies (count_unavailable); every window must say the count is unknown, never show 0
// orders (the read model dropped DailyCount's error and showed 0).
func TestUnreadableCountIsNotZero(t *testing.T) {
	root := live.Root(t.TempDir())
	path := root.CounterPath("paper")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(string(root), "cockpit.db"))
	if err != nil {
		t.Fatal(err)
	}
	db.Close() // the journal cannot be read either
	r := &readmodel.Reader{Root: root, Broker: "paper", Now: time.Now, DB: db}
	snap := r.Snapshot(context.Background())
	if snap.CountErr == "" {
		t.Fatalf("CountErr empty with OrdersToday %d: an unreadable count was shown as a number", snap.OrdersToday)
	}
	found := false
	for _, f := range snap.Faults {
		found = found || strings.Contains(f, "order count is unreadable")
	}
	if !found {
		t.Errorf("Faults = %q, want the unreadable count raised", snap.Faults)
	}
}
