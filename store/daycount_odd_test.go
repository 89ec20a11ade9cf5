package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/livetest"
)

// beginN writes n plain orders on paper at day's noon.
func beginN(tb testing.TB, db *DB, day time.Time, prefix string, n int) {
	tb.Helper()
	start, _ := live.DayBounds(day)
	for i := range n {
		id := fmt.Sprintf("%s%d", prefix, i)
		if err := db.Begin(context.Background(), live.JournalEntry{ClientOrderID: id, Broker: "paper", Created: start.Add(12 * time.Hour),
			Request: live.OrderRequest{ClientOrderID: id, Symbol: "AAPL"}}); err != nil {
			tb.Fatal(err)
		}
	}
}

// TestDayCountHugeChildren: a detail whose children overflow SQLite's integers once made the
// kept count a float (1 + 2^63-1 is computed in floating point), and taking the row back out
// subtracted the same float, losing every other order of the day: 5 orders, one finished with
// {"children":1e999} then refused, left a count of 0 where the journal holds 4. A row's legs
// are capped, so the count stays an exact integer and the other orders stay counted.
func TestDayCountHugeChildren(t *testing.T) {
	ctx := context.Background()
	day := livetest.Epoch
	for _, huge := range []string{`{"children":1e999}`, `{"children":9223372036854775807}`, `{"children":"99999999999999999999"}`} {
		db := mustOpen(t, "")
		beginN(t, db, day, "h", 5)
		if err := db.Finish(ctx, "h0", live.JournalAccepted, "o1", huge, day); err != nil {
			t.Fatal(err)
		}
		if n, err := db.AcceptedOrders(ctx, "paper", day); err != nil || n < 1000 {
			t.Errorf("%s accepted: AcceptedOrders = %d, %v; want a huge count, no error", huge, n, err)
		}
		if err := db.Finish(ctx, "h1", live.JournalAccepted, "o2", huge, day); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"h0", "h1"} {
			if err := db.Finish(ctx, id, live.JournalRejected, "", "no", day); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := db.AcceptedOrders(ctx, "paper", day); err != nil || n != 3 || n != scanCount(t, db.w, "paper", day) {
			t.Errorf("%s then refused: AcceptedOrders = %d, %v; want 3 (the full scan)", huge, n, err)
		}
	}
}

// TestDayCountNullChildren: {"children":null} made the row's weight NULL, which the kept
// count's NOT NULL refused: the journal outcome could not be written at all. The order counts
// (as 1: no legs known).
func TestDayCountNullChildren(t *testing.T) {
	ctx := context.Background()
	day := livetest.Epoch
	db := mustOpen(t, "")
	beginN(t, db, day, "n", 2)
	if err := db.Finish(ctx, "n0", live.JournalAccepted, "o1", `{"children":null}`, day); err != nil {
		t.Fatalf("Finish with {\"children\":null}: %v", err)
	}
	if n, err := db.AcceptedOrders(ctx, "paper", day); err != nil || n != 2 {
		t.Fatalf("AcceptedOrders = %d, %v; want 2", n, err)
	}
	if err := db.Finish(ctx, "n0", live.JournalRejected, "", "no", day); err != nil {
		t.Fatal(err)
	}
	if n, err := db.AcceptedOrders(ctx, "paper", day); err != nil || n != 1 {
		t.Fatalf("AcceptedOrders = %d, %v; want 1", n, err)
	}
}

// TestDayCountFractionalCreatedAt: a created_at that is not a whole number (a REAL, written
// by hand) gave a fractional day number the reader never asks for, so the row was counted
// nowhere; the scan counted it on its day.
func TestDayCountFractionalCreatedAt(t *testing.T) {
	ctx := context.Background()
	db := mustOpen(t, "")
	day := time.Unix(0, 0).UTC().AddDate(0, 0, 3)
	for i, at := range []float64{float64(day.UnixNano()) + 0.5, float64(day.UnixNano()) + 3600e9 + 0.25} {
		if _, err := db.w.Exec(`INSERT INTO order_journal (client_order_id, broker, request, state, created_at, updated_at)
			VALUES (?, 'paper', '{}', 'accepted', ?, 0)`, fmt.Sprint("f", i), at); err != nil {
			t.Fatal(err)
		}
	}
	want := scanCount(t, db.w, "paper", day)
	if n, err := db.AcceptedOrders(ctx, "paper", day); err != nil || n != want || want != 2 {
		t.Fatalf("AcceptedOrders = %d, %v; want %d (the full scan; 2)", n, err, want)
	}
	// Before 1970 too: half a nanosecond before the epoch is the day before it.
	pre := time.Unix(0, 0).UTC().AddDate(0, 0, -1)
	for i, at := range []float64{-0.5, -86400e9 - 0.5} {
		if _, err := db.w.Exec(`INSERT INTO order_journal (client_order_id, broker, request, state, created_at, updated_at)
			VALUES (?, 'paper', '{}', 'accepted', ?, 0)`, fmt.Sprint("p", i), at); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []time.Time{pre, pre.AddDate(0, 0, -1)} {
		want := scanCount(t, db.w, "paper", d)
		if n, err := db.AcceptedOrders(ctx, "paper", d); err != nil || n != want || want != 1 {
			t.Errorf("%s: AcceptedOrders = %d, %v; want %d (the full scan; 1)", live.UTCDay(d), n, err, want)
		}
	}
}

// TestDayCountMigrationOddChildren: a database at schema 7 whose only order of a day has
// {"children":null} summed to NULL in the backfill, and migration 0008 failed (NOT NULL): the
// store would not open.
func TestDayCountMigrationOddChildren(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cockpit.db")
	w, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	old := &DB{path: path, w: w, Now: time.Now, notify: newNotifier()}
	if err := old.migrateTo(ctx, 7); err != nil {
		t.Fatal(err)
	}
	at := livetest.Epoch.UnixNano()
	for i, detail := range []string{`{"children":null}`, `{"children":1e999}`} {
		if _, err := w.Exec(`INSERT INTO order_journal (client_order_id, broker, request, state, detail, created_at, updated_at)
			VALUES (?, ?, '{}', 'accepted', ?, ?, ?)`, fmt.Sprint("m", i), []string{"paper", "alpaca"}[i], detail, at, at); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	db, err := Open(path)
	if err != nil {
		t.Fatalf("Open (migration 0008): %v", err)
	}
	defer db.Close()
	if n, err := db.AcceptedOrders(ctx, "paper", livetest.Epoch); err != nil || n != 1 {
		t.Errorf("paper: AcceptedOrders = %d, %v; want 1", n, err)
	}
	if n, err := db.AcceptedOrders(ctx, "alpaca", livetest.Epoch); err != nil || n < 1000 {
		t.Errorf("alpaca: AcceptedOrders = %d, %v; want a huge count", n, err)
	}
}
