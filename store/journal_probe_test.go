package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"cockpit/live"
)

// probeEntry is a market buy of AAPL on "paper" for the probe tests' write-ahead rows.
func probeEntry(id string) live.JournalEntry {
	return live.JournalEntry{ClientOrderID: id, Broker: "paper", Actor: live.Agent("a", "s"),
		Request: live.OrderRequest{Symbol: "AAPL", Side: live.Buy, Type: live.Market}}
}

// TestBeginProbedSeesABlockedTable: the write-ahead row with the audit probe folded in leaves
// no probe event behind on a healthy store; on an events table that refuses inserts it fails
// as the probe (live.ErrAuditProbe) and writes no journal row.
func TestBeginProbedSeesABlockedTable(t *testing.T) {
	db := mustOpen(t, "")
	ctx := context.Background()
	if !db.ProbesFor(db) || db.ProbesFor(live.MultiSink{db}) {
		t.Fatal("ProbesFor: want true for the store itself only")
	}
	if err := db.BeginProbed(ctx, probeEntry("ok-1")); err != nil {
		t.Fatalf("healthy store: %v", err)
	}
	if n, _ := db.LastSeq(ctx); n != 0 {
		t.Fatalf("the probe left event %d behind", n)
	}
	if _, err := db.w.Exec(`CREATE TRIGGER block BEFORE INSERT ON events BEGIN SELECT RAISE(FAIL, 'x'); END`); err != nil {
		t.Fatal(err)
	}
	err := db.BeginProbed(ctx, probeEntry("blocked-1"))
	if !errors.Is(err, live.ErrAuditProbe) {
		t.Fatalf("blocked events table: got %v, want an audit probe failure", err)
	}
	var n int
	if err := db.r.QueryRow(`SELECT count(*) FROM order_journal WHERE client_order_id IN ('ok-1', 'blocked-1')`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("journal rows: got %d (%v), want 1 (the healthy one)", n, err)
	}
	if err := db.Begin(ctx, probeEntry("plain-1")); err != nil { // Begin alone does not probe
		t.Fatalf("Begin without probe: %v", err)
	}
}

// walSize is the size of db's write-ahead log file.
func walSize(t *testing.T, db *DB) int64 {
	t.Helper()
	st, err := os.Stat(db.path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// TestProbedBeginWritesNoProbePages: once a full probe has passed under the store's own
// schema, a probed write-ahead row puts no more into the WAL than a plain one (before, the
// probe's rolled-back pages went out with every commit).
func TestProbedBeginWritesNoProbePages(t *testing.T) {
	db := mustOpen(t, filepath.Join(t.TempDir(), "c.db"))
	ctx := context.Background()
	for i := range 3 { // the first runs the full probe
		if err := db.BeginProbed(ctx, probeEntry(fmt.Sprint("warm-", i))); err != nil {
			t.Fatal(err)
		}
		if err := db.Begin(ctx, probeEntry(fmt.Sprint("plain-warm-", i))); err != nil {
			t.Fatal(err)
		}
	}
	w0 := walSize(t, db)
	if err := db.Begin(ctx, probeEntry("plain")); err != nil {
		t.Fatal(err)
	}
	w1 := walSize(t, db)
	if err := db.BeginProbed(ctx, probeEntry("probed")); err != nil {
		t.Fatal(err)
	}
	w2 := walSize(t, db)
	if plain, probed := w1-w0, w2-w1; probed > plain {
		t.Errorf("WAL growth: probed begin %d bytes, plain begin %d; want the probe to add nothing", probed, plain)
	}
}

// TestProbeRunsEveryTimeWithAForeignTrigger: a trigger on events that is not the store's own
// may refuse a later insert (here from the fourth journal row on), so the probe is never
// skipped while it is there, and it runs again after any schema change.
func TestProbeRunsEveryTimeWithAForeignTrigger(t *testing.T) {
	db := mustOpen(t, "")
	ctx := context.Background()
	if _, err := db.w.Exec(`CREATE TRIGGER later BEFORE INSERT ON events WHEN (SELECT count(*) FROM order_journal) >= 3
		BEGIN SELECT RAISE(FAIL, 'full'); END`); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := db.BeginProbed(ctx, probeEntry(fmt.Sprint("ok-", i))); err != nil {
			t.Fatalf("order %d: %v", i, err)
		}
	}
	if err := db.BeginProbed(ctx, probeEntry("refused")); !errors.Is(err, live.ErrAuditProbe) {
		t.Fatalf("fourth order: got %v, want an audit probe failure", err)
	}
	if _, err := db.w.Exec(`DROP TRIGGER later`); err != nil {
		t.Fatal(err)
	}
	if err := db.BeginProbed(ctx, probeEntry("after-drop")); err != nil {
		t.Fatalf("after the trigger is dropped: %v", err)
	}
	// The same trigger text under the store's own name is still not the store's own.
	if _, err := db.w.Exec(`DROP TRIGGER events_append_only_update`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.w.Exec(`CREATE TRIGGER events_append_only_update BEFORE INSERT ON events
		BEGIN SELECT RAISE(ABORT, 'events are append-only'); END`); err != nil {
		t.Fatal(err)
	}
	if err := db.BeginProbed(ctx, probeEntry("impostor")); !errors.Is(err, live.ErrAuditProbe) {
		t.Fatalf("impostor trigger: got %v, want an audit probe failure", err)
	}
}

// TestProbeRunsWhileEventsHasForeignSchema: a UNIQUE index or a trigger on events that the
// store did not create can refuse an insert depending on the rows already there; the probe
// must keep running in full while one exists, however its table name is spelled, so the
// write-ahead row fails before an order whose audit record would be refused (a cached probe
// passed once on an empty table and then let such orders go).
func TestProbeRunsWhileEventsHasForeignSchema(t *testing.T) {
	tests := []struct{ name, ddl string }{
		{"unique index", `CREATE UNIQUE INDEX one_per_actor_kind ON events (actor_kind)`},
		{"trigger on EVENTS", `CREATE TRIGGER one_event BEFORE INSERT ON EVENTS
			WHEN (SELECT count(*) FROM events) > 0 BEGIN SELECT RAISE(FAIL, 'one event only'); END`},
		{"trigger on main.Events", `CREATE TRIGGER one_event BEFORE INSERT ON main.Events
			WHEN (SELECT count(*) FROM events) > 0 BEGIN SELECT RAISE(FAIL, 'one event only'); END`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := mustOpen(t, "")
			ctx := context.Background()
			if _, err := db.w.Exec(tt.ddl); err != nil {
				t.Fatal(err)
			}
			if err := db.BeginProbed(ctx, probeEntry("first")); err != nil { // empty table: passes
				t.Fatalf("first probe: %v", err)
			}
			if err := db.Record(ctx, live.AuditRecord{Time: db.now(), Actor: live.System("test", ""), Kind: "note"}); err != nil {
				t.Fatal(err)
			}
			if err := db.BeginProbed(ctx, probeEntry("second")); !errors.Is(err, live.ErrAuditProbe) {
				t.Errorf("probe once an insert would be refused: got %v, want an audit probe failure", err)
			}
		})
	}
}

// TestOwnEventsSchemaMatchesAStore: a store as migrated has exactly the schema the probe's
// cache expects on events (else every probe would run in full, which is safe but slower).
func TestOwnEventsSchemaMatchesAStore(t *testing.T) {
	db := mustOpen(t, "")
	own, err := ownEventsSchema()
	if err != nil || len(own) < 3 {
		t.Fatalf("ownEventsSchema: %d lines, %v", len(own), err)
	}
	tx, err := db.w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if !ownEventsOnly(context.Background(), tx) {
		have, _ := querySchema(context.Background(), tx)
		t.Errorf("a fresh store's events schema:\n%q\nwant\n%q", have, own)
	}
}
