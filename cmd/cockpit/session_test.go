package main

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/session"
	"cockpit/store"
)

// TestSecondStartLeavesRunningSessionAlone is issue 10 item 6: while a session owns the root
// and a review waits on its screen, a second start-up fails "in use" and changes nothing:
// the review stays pending and no mandate or session row is written.
func TestSecondStartLeavesRunningSessionAlone(t *testing.T) {
	home := t.TempDir()
	run(t, home, "", "init")
	a := NewApp(strings.NewReader(""), &strings.Builder{}, &strings.Builder{})
	a.Now = func() time.Time { return fixedNow }
	a.Getenv = func(string) string { return "" }
	first, err := a.openSession(home, session.Options{Agent: "none", Mode: "headless"})
	if err != nil {
		t.Fatalf("first session: %v", err)
	}
	defer first.Close()
	ctx := context.Background()
	if err := first.Runtime().DB.CreateApproval(ctx, store.Approval{ID: "ap_on_screen", SessionID: first.ID(), Broker: "paper",
		OrderJSON: `{"symbol":"AAPL"}`, Digest: "d", Why: "breach", Limit: live.LimitOrderNotional, LimitValue: "5000",
		Attempted: "6000", CreatedAt: fixedNow, Deadline: fixedNow.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
	}{
		{"run --headless", []string{"run", "--headless", "--agent", "none", "--for", "1s"}},
		{"flatten", []string{"flatten", "--reason", "x"}},
		{"check --live", []string{"check", "--live", "--symbol", "AAPL", "--side", "buy", "--notional", "100"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := run(t, home, "", tt.args...)
			if code != exitFailure || !strings.Contains(errOut, "in use") {
				t.Errorf("exit %d, stderr %q; want 1 and \"in use\"", code, errOut)
			}
			it, err := first.Runtime().DB.Approval(ctx, "ap_on_screen")
			if err != nil {
				t.Fatal(err)
			}
			if it.State != store.ApprovalPending {
				t.Errorf("got review %s (%s), want it still pending", it.State, it.Resolution)
			}
		})
	}
}

// TestInitLeavesAnOwnedAccountAlone: `cockpit init` beside a running cockpit commits no
// mandate for the account that cockpit owns.
func TestInitLeavesAnOwnedAccountAlone(t *testing.T) {
	home := t.TempDir()
	release, err := lockPaper(live.Root(home), live.PaperBroker)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	out, errOut, code := run(t, home, "", "init")
	if code != exitOK || !strings.Contains(out, "its mandate is left to it") {
		t.Fatalf("init beside an owner: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(live.Root(home).MandatePath(live.PaperBroker)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("got a mandate file committed by a process that does not own the account (stat err %v), want none", err)
	}
}
