package session

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"

	"cockpit/live"
	"cockpit/live/money"
)

// sqlExec runs SQL on the root's database file directly, as a tool (or a trigger-writing
// attacker) would.
func sqlExec(t *testing.T, home, q string) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(home, "cockpit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(q); err != nil {
		t.Fatal(err)
	}
}

// diskFull makes the store refuse what a full disk refuses once the write-ahead row is in:
// the paper account and the journal's outcome (the triggers stand in for SQLITE_FULL).
const diskFull = `
CREATE TRIGGER full_paper_insert BEFORE INSERT ON paper_accounts BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END;
CREATE TRIGGER full_paper_update BEFORE UPDATE ON paper_accounts BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END;
CREATE TRIGGER full_journal BEFORE UPDATE ON order_journal BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END;`

const diskFreed = `DROP TRIGGER full_paper_insert; DROP TRIGGER full_paper_update; DROP TRIGGER full_journal;`

// TestPaperBookSurvivesAFullDisk is issue 27 item 6's paper repro: the disk fills between an
// order's write-ahead row and its outcome. After space is freed the restart reconciles the
// order from the paper account it reloads: what the broker said was filled is filled there
// (today the fill lived only in memory, and the restart reconciled it as rejected), and an
// order reconciled as rejected is one the broker never said it took.
func TestPaperBookSurvivesAFullDisk(t *testing.T) {
	home := t.TempDir()
	s, err := Open(testOptions(home))
	if err != nil {
		t.Fatal(err)
	}
	sqlExec(t, home, diskFull)
	d := s.buy(t)
	s.Close()
	sqlExec(t, home, diskFreed)
	if d.ClientOrderID == "" {
		t.Fatalf("the order never reached the write-ahead row: %s %s", d.Verdict, d.Reason)
	}
	again, err := Open(testOptions(home))
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	ctx := context.Background()
	entries, err := again.rt.DB.JournalEntries(ctx, "paper")
	if err != nil || len(entries) != 1 {
		t.Fatalf("journal: %d rows, %v; want the order's row", len(entries), err)
	}
	row := entries[0]
	held, herr := again.broker.OrderByClientID(ctx, d.ClientOrderID)
	saidFilled := d.Order != nil && d.Order.Status == live.StatusFilled
	t.Logf("first run: %s %s, order %+v; journal after restart: %s; paper account: %v", d.Verdict, d.Outcome, d.Order, row.State, herr)
	switch {
	case saidFilled && (row.State != live.JournalAccepted || herr != nil || held.Status != live.StatusFilled):
		t.Fatalf("the broker said %s filled; after the restart the journal says %s and the paper account %v (%s)", d.ClientOrderID, row.State, herr, held.Status)
	case row.State == live.JournalRejected && (herr == nil || d.Forwarded && d.BrokerErr == nil):
		t.Fatalf("reconciled as rejected, yet the broker took it: first run forwarded=%v err=%v, paper account %v", d.Forwarded, d.BrokerErr, herr)
	}
}

// TestPaperSavesDoNotGrowWithTheAccount (issue 32): a session's paper account is saved change
// by change. After 150 orders no row of the store holds the account's history (before, the
// whole account, every order ever placed, was one row rewritten after each change).
func TestPaperSavesDoNotGrowWithTheAccount(t *testing.T) {
	home := t.TempDir()
	s, err := Open(testOptions(home))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	one := money.FromInt(1)
	for i := range 150 {
		side := []string{live.Buy, live.Sell}[i%2]
		if _, err := s.paper.PlaceOrder(ctx, live.OrderRequest{ClientOrderID: fmt.Sprintf("flat%d", i), Symbol: "AAPL", Side: side, Quantity: &one}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	db, err := sql.Open("sqlite", filepath.Join(home, "cockpit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var largest int
	if err := db.QueryRow(`SELECT max(length(state)) FROM paper_accounts`).Scan(&largest); err != nil {
		t.Fatal(err)
	}
	if largest > 2048 {
		t.Errorf("the paper account's row is %d bytes after 150 orders: each save rewrites the history", largest)
	}
	again, err := Open(testOptions(home))
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if o, err := again.broker.OrderByClientID(ctx, "flat7"); err != nil || o.Status != live.StatusFilled {
		t.Errorf("an early order after the restart: %+v %v, want filled", o, err)
	}
}
