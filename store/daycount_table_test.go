package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/livetest"
)

// scanQuery is the day count as the store computed it before migration 0008: every journal
// row of the day summed, the requests that look reduce-only handed back and decoded. It is
// the oracle journal_day_counts must agree with.
const scanQuery = `SELECT CASE WHEN instr(request, '"ReduceOnly":true') > 0 AND json_valid(request) AND json_type(request, '$.ReduceOnly') = 'true'
		THEN request END AS ro,
		SUM(1 + CASE WHEN detail LIKE '{"children":%' AND json_valid(detail) THEN max(0, CAST(json_extract(detail, '$.children') AS INTEGER)) ELSE 0 END)
		FROM order_journal INDEXED BY order_journal_state
		WHERE state IN (?, ?, ?) AND broker = ? AND created_at >= ? AND created_at < ? GROUP BY ro`

// scanCount runs scanQuery on conn.
func scanCount(tb testing.TB, conn *sql.DB, broker string, day time.Time) int {
	tb.Helper()
	start, end := live.DayBounds(day)
	rows, err := conn.Query(scanQuery, string(live.JournalAccepted), string(live.JournalIndeterminate), string(live.JournalSubmitting),
		broker, start.UnixNano(), end.UnixNano())
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var raw sql.NullString
		var k int
		if err := rows.Scan(&raw, &k); err != nil {
			tb.Fatal(err)
		}
		var req live.OrderRequest
		if raw.Valid && json.Unmarshal([]byte(raw.String), &req) == nil && req.ReduceOnly {
			continue
		}
		n += k
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return n
}

// TestDayCountsMatchTheJournal: after every journal write of a long random run — orders begun
// on three days and two brokers, reduce-only or not, finished in every state with and without
// children (valid, negative, unreadable), finished again as reconciliation does, moved,
// deleted — the kept count of every broker and day equals the old full scan.
func TestDayCountsMatchTheJournal(t *testing.T) {
	db := mustOpen(t, "")
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(15, 8))
	brokers := []string{"paper", "alpaca"}
	day0 := livetest.Epoch
	days := []time.Time{day0.AddDate(0, 0, -1), day0, day0.AddDate(0, 0, 1)}
	states := []live.JournalState{live.JournalAccepted, live.JournalRejected, live.JournalIndeterminate, live.JournalSubmitting}
	details := []string{"", `{"children":2}`, `{"children":-3}`, `{"children":"x"}`, `{"children":1`, "rejected: no"}
	var ids []string
	check := func(step int, what string) {
		t.Helper()
		for _, b := range brokers {
			for _, d := range days {
				got, err := db.AcceptedOrders(ctx, b, d)
				want := scanCount(t, db.w, b, d)
				if err != nil || got != want {
					t.Fatalf("step %d (%s): %s on %s: got %d, %v; want %d (the full scan)", step, what, b, live.UTCDay(d), got, err, want)
				}
			}
		}
	}
	for step := range 600 {
		var what string
		switch op := rng.IntN(10); {
		case op < 4 || len(ids) == 0:
			start, _ := live.DayBounds(days[rng.IntN(len(days))])
			at := start.Add(time.Duration(rng.Int64N(int64(24 * time.Hour))))
			if rng.IntN(8) == 0 {
				at = start // the day's first instant
			}
			id := fmt.Sprintf("ck_%d", step)
			e := live.JournalEntry{ClientOrderID: id, Broker: brokers[rng.IntN(2)], Created: at,
				Request: live.OrderRequest{ClientOrderID: id, Symbol: "AAPL", ReduceOnly: rng.IntN(3) == 0}}
			if err := db.Begin(ctx, e); err != nil {
				t.Fatal(err)
			}
			ids, what = append(ids, id), "begin"
		case op < 8:
			id := ids[rng.IntN(len(ids))]
			st, det := states[rng.IntN(len(states))], details[rng.IntN(len(details))]
			if err := db.Finish(ctx, id, st, "o1", det, day0); err != nil {
				t.Fatal(err)
			}
			what = fmt.Sprintf("finish %s %s %q", id, st, det)
		case op < 9:
			id := ids[rng.IntN(len(ids))]
			if _, err := db.w.Exec(`UPDATE order_journal SET broker = ?, created_at = created_at + ? WHERE client_order_id = ?`,
				brokers[rng.IntN(2)], int64(rng.IntN(3)-1)*int64(24*time.Hour), id); err != nil {
				t.Fatal(err)
			}
			what = "move " + id
		default:
			i := rng.IntN(len(ids))
			if _, err := db.w.Exec(`DELETE FROM order_journal WHERE client_order_id = ?`, ids[i]); err != nil {
				t.Fatal(err)
			}
			what = "delete " + ids[i]
			ids = append(ids[:i], ids[i+1:]...)
		}
		check(step, what)
	}
}

// TestDayCountMigration: a database written before migration 0008 keeps its counts: the
// backfill agrees with the old scan on every broker and day, including requests that look
// reduce-only but do not decode (they count, as an unknown order does) and legs in details.
func TestDayCountMigration(t *testing.T) {
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
	day0 := livetest.Epoch
	days := []time.Time{day0.AddDate(0, 0, -1), day0}
	rows := []struct{ broker, req, state, detail string }{
		{"paper", `not json`, "accepted", ""},
		{"paper", `{"ReduceOnly":true,"Quantity":"abc"}`, "accepted", ""},
		{"paper", `{"ReduceOnly":true}`, "accepted", ""},
		{"paper", `{"ReduceOnly":true}`, "submitting", ""},
		{"paper", `{"ReduceOnly":false}`, "accepted", `{"children":2}`},
		{"paper", `{"ReduceOnly":"true"}`, "indeterminate", ""},
		{"paper", `{}`, "rejected", `{"children":5}`},
		{"alpaca", `{}`, "accepted", `{"children":-1}`},
		{"alpaca", `{"ReduceOnly":true}`, "accepted", `{"children":2}`},
	}
	want := map[string]int{}
	for d, day := range days {
		for i, r := range rows {
			at := day.Add(time.Duration(i) * time.Minute).UnixNano()
			if _, err := w.Exec(`INSERT INTO order_journal (client_order_id, broker, actor_kind, actor_id, session_id,
				request, state, detail, created_at, updated_at) VALUES (?, ?, 'agent', '', '', ?, ?, ?, ?, ?)`,
				fmt.Sprintf("ck_%d_%d", d, i), r.broker, r.req, r.state, r.detail, at, at); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, b := range []string{"paper", "alpaca"} {
		for _, day := range days {
			want[b+live.UTCDay(day)] = scanCount(t, w, b, day)
		}
	}
	if want["paper"+live.UTCDay(day0)] != 6 || want["alpaca"+live.UTCDay(day0)] != 1 {
		t.Fatalf("the old scan counts %v; the rows above were meant to give paper 6, alpaca 1", want)
	}
	w.Close()

	db := mustOpen(t, path) // migrates to 0008
	for _, b := range []string{"paper", "alpaca"} {
		for _, day := range days {
			got, err := db.AcceptedOrders(ctx, b, day)
			if err != nil || got != want[b+live.UTCDay(day)] {
				t.Errorf("%s on %s after the migration: got %d, %v; want %d (the old scan)", b, live.UTCDay(day), got, err, want[b+live.UTCDay(day)])
			}
		}
	}
}

// TestRawJournalRowCounts: a row written without the reduce-only flag (not by Begin) counts,
// whatever its request says: the flag is the only way out of the count.
func TestRawJournalRowCounts(t *testing.T) {
	db := mustOpen(t, "")
	at := livetest.Epoch.UnixNano()
	if _, err := db.w.Exec(`INSERT INTO order_journal (client_order_id, broker, actor_kind, actor_id, session_id,
		request, state, created_at, updated_at) VALUES ('a', 'paper', 'agent', '', '', '{"ReduceOnly":true}', 'accepted', ?, ?)`, at, at); err != nil {
		t.Fatal(err)
	}
	if n, err := db.AcceptedOrders(context.Background(), "paper", livetest.Epoch); err != nil || n != 1 {
		t.Fatalf("AcceptedOrders = %d, %v; want 1", n, err)
	}
}
