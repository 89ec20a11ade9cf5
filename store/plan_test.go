package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/livetest"
)

// queryPlan is SQLite's plan for q, one step a line.
func queryPlan(t *testing.T, db *DB, q string, args ...any) string {
	t.Helper()
	rows, err := db.r.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, detail)
	}
	return strings.Join(lines, "\n")
}

// TestHotQueriesUseIndexes (issue 32): what runs for each order, each second of the screen or
// at each start reads through an index by key or by a bound that follows the day or the ids
// asked for, never every row the store has held: the plan of each names the index it walks
// and scans no table.
func TestHotQueriesUseIndexes(t *testing.T) {
	db := mustOpen(t, "")
	since := livetest.Epoch
	spend, spendArgs := eventsQuery(Filter{Type: live.KindLLMUsage, Since: since, AfterSeq: 0, Ascending: true, Limit: 1000})
	trail, trailArgs := eventsQuery(Filter{OrderID: "ck_1", Ascending: true, Limit: 50})
	cases := []struct {
		name string
		q    string
		args []any
		want []string
	}{
		{"pending review items (each second)", approvalsInState, []any{"pending", 200}, []string{"USING INDEX approvals_state (state=?)"}},
		{"today's largest order (each start)", largestNotional, []any{live.KindOrderPlaced, "paper", since.UnixNano(), since.UnixNano()},
			[]string{"USING INDEX events_type (type=? AND seq>?)", "INDEX events_ts (ts>?)"}},
		{"today's LLM spend (each start)", spend, spendArgs, []string{"USING INDEX events_type (type=? AND seq>?)", "INDEX events_ts (ts>?)"}},
		{"an order's trail (each new open order)", trail, trailArgs, []string{"USING INDEX events_order (order_id=?)", "USING INDEX events_client_order (client_order_id=?)"}},
		{"who placed the open orders (each new open order)", actorsQuery(3), []any{"paper", "a", "b", "c"}, []string{"USING INDEX sqlite_autoindex_order_journal_1 (client_order_id=?)"}},
		{"the day's count (each order)", acceptedCount, []any{"paper", 1}, []string{"USING PRIMARY KEY (broker=? AND day=?)"}},
		{"the mandate's last commit (each order)", `SELECT payload FROM events WHERE type = ? AND broker = ? AND outcome = ? ORDER BY seq DESC LIMIT 1`,
			[]any{live.KindMandateCommitted, "paper", live.OutcomeAccepted}, []string{"USING INDEX events_type (type=?)"}},
		{"the anchored event (each anchor write)", `SELECT hash FROM events WHERE seq = ?`, []any{1}, []string{"USING INTEGER PRIMARY KEY (rowid=?)"}},
		{"a settled paper order by id (a cancel)", paperOrderByID, []any{"paper", "P000001"}, []string{"USING PRIMARY KEY (broker=? AND id=?)"}},
		{"a paper order by client order id (each order)", paperOrderByClient, []any{"paper", "ck_1"}, []string{"USING INDEX paper_orders_client (broker=? AND client_order_id=?)"}},
		{"the open paper orders (each start)", paperOpenOrders, []any{"paper"}, []string{"USING INDEX paper_orders_open (broker=?)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plan := queryPlan(t, db, c.q, c.args...)
			for _, w := range c.want {
				if !strings.Contains(plan, w) {
					t.Errorf("plan does not walk %q:\n%s", w, plan)
				}
			}
			for _, line := range strings.Split(plan, "\n") {
				if strings.HasPrefix(line, "SCAN ") && line != "SCAN CONSTANT ROW" {
					t.Errorf("plan scans a table (%s):\n%s", line, plan)
				}
			}
		})
	}
}

// TestSinceBoundKeepsEveryEventSince: the seq bound of a query by time keeps each event at or
// after the time, also when times do not grow with seq (an event recorded late, a clock set
// back).
func TestSinceBoundKeepsEveryEventSince(t *testing.T) {
	db := mustOpen(t, "")
	ctx := context.Background()
	day := livetest.Epoch.Truncate(24 * time.Hour)
	at := []time.Duration{-2 * time.Hour, 3 * time.Hour, -time.Hour, 5 * time.Hour, -3 * time.Hour, 2 * time.Hour}
	var evs []Event
	for i, d := range at {
		evs = append(evs, Event{Time: day.Add(d), Type: live.KindLLMUsage, ActorKind: "agent", Summary: string(rune('a' + i)), Payload: "{}"})
	}
	if _, err := db.AppendBatch(ctx, evs); err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := db.EachEvent(ctx, live.KindLLMUsage, day, func(_ time.Time, _ string) {}); err != nil {
		t.Fatal(err)
	}
	list, err := db.Events(ctx, Filter{Type: live.KindLLMUsage, Since: day, Ascending: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range list {
		got = append(got, e.Summary)
	}
	if strings.Join(got, "") != "bdf" {
		t.Errorf("events since the day: %q, want b, d and f", got)
	}
	if none, err := db.Events(ctx, Filter{Since: day.Add(24 * time.Hour)}); err != nil || len(none) != 0 {
		t.Errorf("events since tomorrow: %d, %v; want none", len(none), err)
	}
}
