package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"cockpit/live"
)

// TestReadStatementsArePreparedOnce: the snapshot's reads reuse one prepared statement each,
// still see new rows, and fail (never panic) after Close; so does the day count.
func TestReadStatementsArePreparedOnce(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "cockpit.db"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 3 {
		if err := db.Record(ctx, live.AuditRecord{Time: time.Now(), Actor: live.System("test", "t"), Kind: "note", Outcome: "ok"}); err != nil {
			t.Fatal(err)
		}
		n, err := db.LastSeq(ctx)
		if err != nil || n != int64(i+1) {
			t.Fatalf("LastSeq after %d records: got %d, %v", i+1, n, err)
		}
		if _, err := db.AcceptedOrders(ctx, "paper", time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	db.stmts.mu.Lock()
	got := len(db.stmts.stmts)
	db.stmts.mu.Unlock()
	if got != 1 { // AcceptedOrders runs on the write connection's statement (wstmts.go)
		t.Fatalf("prepared read statements: got %d, want 1 (one per distinct query)", got)
	}
	db.Close()
	if _, err := db.LastSeq(ctx); err == nil {
		t.Fatal("LastSeq after Close: got no error")
	}
	if _, err := db.AcceptedOrders(ctx, "paper", time.Now()); err == nil {
		t.Fatal("AcceptedOrders after Close: got no error")
	}
}
