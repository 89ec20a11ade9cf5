package store

import (
	"context"
	"errors"
	"testing"

	"cockpit/live"
)

// TestBeginProbedSeesABlockedTable: the write-ahead row with the audit probe folded in leaves
// no probe event behind on a healthy store; on an events table that refuses inserts it fails
// as the probe (live.ErrAuditProbe) and writes no journal row.
func TestBeginProbedSeesABlockedTable(t *testing.T) {
	db := mustOpen(t, "")
	ctx := context.Background()
	if !db.ProbesFor(db) || db.ProbesFor(live.MultiSink{db}) {
		t.Fatal("ProbesFor: want true for the store itself only")
	}
	entry := func(id string) live.JournalEntry {
		return live.JournalEntry{ClientOrderID: id, Broker: "paper", Actor: live.Agent("a", "s"),
			Request: live.OrderRequest{Symbol: "AAPL", Side: live.Buy, Type: live.Market}}
	}
	if err := db.BeginProbed(ctx, entry("ok-1")); err != nil {
		t.Fatalf("healthy store: %v", err)
	}
	if n, _ := db.LastSeq(ctx); n != 0 {
		t.Fatalf("the probe left event %d behind", n)
	}
	if _, err := db.w.Exec(`CREATE TRIGGER block BEFORE INSERT ON events BEGIN SELECT RAISE(FAIL, 'x'); END`); err != nil {
		t.Fatal(err)
	}
	err := db.BeginProbed(ctx, entry("blocked-1"))
	if !errors.Is(err, live.ErrAuditProbe) {
		t.Fatalf("blocked events table: got %v, want an audit probe failure", err)
	}
	var n int
	if err := db.r.QueryRow(`SELECT count(*) FROM order_journal WHERE client_order_id IN ('ok-1', 'blocked-1')`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("journal rows: got %d (%v), want 1 (the healthy one)", n, err)
	}
	if err := db.Begin(ctx, entry("plain-1")); err != nil { // Begin alone does not probe
		t.Fatalf("Begin without probe: %v", err)
	}
}
