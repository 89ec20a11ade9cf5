package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"cockpit/engine"
	"cockpit/live"
	"cockpit/live/counter"
	"cockpit/session"
	"cockpit/store"
)

// TestApproveFromCLISaysWhenItDidNotGoThrough is issue 10 item 7 on the command line: the
// card showed only the order cap; while the human read, another order used the day's last
// trade; `cockpit approvals approve ID` does not say "approved" and stop, it says the
// approval did not go through and why, and exits 1.
func TestApproveFromCLISaysWhenItDidNotGoThrough(t *testing.T) {
	home := t.TempDir()
	run(t, home, "", "init")
	a := NewApp(strings.NewReader(""), &strings.Builder{}, &strings.Builder{})
	a.Now = func() time.Time { return fixedNow }
	a.Getenv = func(string) string { return "" }
	s, err := a.openSession(home, session.Options{Agent: "none", Approvals: "cli", Mode: "headless"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Engine().ReviewPoll = 2 * time.Millisecond
	for range 39 { // 39 of 40 trades used: the 6,000 order breaches only the order cap
		if _, err := counter.IncrementDailyCount(s.Runtime().Root, live.PaperBroker, fixedNow); err != nil {
			t.Fatal(err)
		}
	}
	res := make(chan engine.Result, 1)
	go func() {
		res <- s.Engine().NewTurn("strategy").Call(context.Background(), "place_order",
			map[string]any{"symbol": "AAPL", "side": "buy", "notional": "6000", "reason": "test"})
	}()
	var id string
	for deadline := time.Now().Add(5 * time.Second); id == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if items, _ := s.Runtime().DB.Approvals(context.Background(), store.ApprovalPending, 1); len(items) == 1 {
			id = items[0].ID
		}
	}
	if id == "" {
		t.Fatalf("no review item appeared; the call returned %+v", <-res)
	}
	if _, err := counter.IncrementDailyCount(s.Runtime().Root, live.PaperBroker, fixedNow); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, home, "", "approvals", "approve", id)
	r := <-res
	want := "approval did not go through: max_trades_per_day 40/40 used today"
	if code != exitFailure || !strings.Contains(out, want) {
		t.Errorf("approve: exit %d, stdout %q, stderr %q; want 1 and %q", code, out, errOut, want)
	}
	if r.Code != "approval_does_not_cover:max_trades_per_day" {
		t.Errorf("the call: %s %s", r.Code, r.Detail)
	}
}
