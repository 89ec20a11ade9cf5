package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/store"
)

// TestApprovalsListIsATable: `approvals list` reads as a table (id, broker, the order as
// "BUY $6000 AAPL", state, the deadline countdown, why and every breach), not the raw request
// JSON; --json keeps the machine form (issue 12).
func TestApprovalsListIsATable(t *testing.T) {
	home := t.TempDir()
	run(t, home, "", "init")
	db, err := store.Open(filepath.Join(home, "cockpit.db"))
	if err != nil {
		t.Fatal(err)
	}
	db.CreateApproval(context.Background(), store.Approval{ID: "ap_one", Broker: "paper",
		OrderJSON: `{"notional":"6000","side":"buy","symbol":"AAPL","type":"market"}`, Digest: "d", Why: "breach",
		Limit: live.LimitOrderNotional, LimitValue: "5000", Attempted: "6000", CreatedAt: fixedNow, Deadline: fixedNow.Add(90 * time.Second),
		Breaches: []store.ApprovalBreach{{Limit: live.LimitOrderNotional, LimitValue: "5000", Attempted: "6000"},
			{Limit: "max_position_pct", LimitValue: "10", Attempted: "12"}}})
	db.Close()
	out, _, code := run(t, home, "", "approvals", "list")
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("exit %d, got %d lines, want a header and one row:\n%s", code, len(lines), out)
	}
	for _, h := range []string{"ID", "BROKER", "ORDER", "STATE", "DEADLINE", "WHY / BREACHES"} {
		if !strings.Contains(lines[0], h) {
			t.Errorf("header %q lacks %q", lines[0], h)
		}
	}
	for _, want := range []string{"ap_one", "paper", "BUY $6000 AAPL", "pending", "1m 30s left",
		"breach — max_order_notional_usd: 6000 > 5000; max_position_pct: 12 > 10"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("row %q lacks %q", lines[1], want)
		}
	}
	if strings.Contains(out, `{"`) {
		t.Errorf("the table prints raw request JSON:\n%s", out)
	}
	js, _, _ := run(t, home, "", "approvals", "list", "--json")
	if !strings.HasPrefix(js, "[\n"+`{"id":"ap_one"`) || !strings.Contains(js, `"order":{"notional":"6000"`) {
		t.Errorf("--json: %s", js)
	}
}
