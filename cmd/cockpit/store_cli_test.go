package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/store"
)

// TestOperatorActionsAreAudited: init, halt, resume, commit and flatten each leave an audit
// event with the operator (or the system) as actor, and the chain verifies.
func TestOperatorActionsAreAudited(t *testing.T) {
	home, file := t.TempDir(), writeDraft(t, draft)
	for _, args := range [][]string{{"init"}, {"halt", "--reason", "x"}, {"resume", "--reason", "y"}, {"flatten", "--close-positions"}} {
		if out, errOut, code := run(t, home, "", args...); code != 0 {
			t.Fatalf("%v: %d %s %s", args, code, out, errOut)
		}
	}
	run(t, home, "alpaca\n", "mandate", "commit", "--broker", "alpaca", "--from", file)
	out, _, code := run(t, home, "", "audit", "list")
	if code != 0 {
		t.Fatal(out)
	}
	for _, want := range []string{"system   mandate_committed", "operator halt_tripped", "operator halt_cleared", "operator flatten", "operator mandate_committed"} {
		if !strings.Contains(out, want) {
			t.Errorf("audit list lacks %q:\n%s", want, out)
		}
	}
	if out, _, code := run(t, home, "", "audit", "verify"); code != 0 || !strings.Contains(out, "audit chain OK") {
		t.Fatalf("verify: %d %s", code, out)
	}
}

// TestAuditVerifyNamesTheEditedRow edits one byte of one stored event in the database file:
// `cockpit audit verify` exits non-zero and names that event.
func TestAuditVerifyNamesTheEditedRow(t *testing.T) {
	home := t.TempDir()
	run(t, home, "", "init")
	run(t, home, "", "halt", "--reason", "MARKER-ONE")
	run(t, home, "", "resume", "--reason", "MARKER-TWO")
	editStoredText(t, home, "MARKER-TWO")
	out, _, code := run(t, home, "", "audit", "verify")
	if code != exitFailure || !strings.Contains(out, "BROKEN at event 3") {
		t.Fatalf("verify after the edit: %d %q", code, out)
	}
}

// TestApprovalsFromAnotherTerminal resolves a review item through the CLI.
func TestApprovalsFromAnotherTerminal(t *testing.T) {
	home := t.TempDir()
	run(t, home, "", "init")
	db, err := store.Open(filepath.Join(home, "cockpit.db"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	db.CreateApproval(context.Background(), store.Approval{ID: "ap_test", Broker: "paper", OrderJSON: `{"symbol":"AAPL"}`,
		Digest: "d", Why: "breach", Limit: live.LimitOrderNotional, LimitValue: "5000", Attempted: "6000", CreatedAt: now, Deadline: now.Add(time.Hour)})
	db.Close()
	out, _, _ := run(t, home, "", "approvals", "list")
	if !strings.Contains(out, "ap_test") || !strings.Contains(out, "max_order_notional_usd: 6000 > 5000") {
		t.Fatalf("list: %s", out)
	}
	if out, _, code := run(t, home, "", "approvals", "deny", "ap_test", "--reason", "too big"); code != 0 || !strings.Contains(out, "denied") {
		t.Fatalf("deny: %d %s", code, out)
	}
	if out, _, code := run(t, home, "", "approvals", "approve", "ap_test"); code != exitFailure || !strings.Contains(out, "already denied") {
		t.Fatalf("second resolution: %d %s", code, out)
	}
	if out, _, _ := run(t, home, "", "audit", "list", "--type", "approval_denied"); !strings.Contains(out, "deny review item ap_test") {
		t.Fatalf("the denial was not audited: %s", out)
	}
}

func TestCheckLive(t *testing.T) {
	home := t.TempDir()
	run(t, home, "", "init")
	out, _, code := run(t, home, "", "check", "--live", "--symbol", "AAPL", "--side", "buy", "--qty", "5")
	if code != 0 || !strings.Contains(out, `"verdict":"ALLOW"`) || !strings.Contains(out, `"valued_notional"`) {
		t.Fatalf("%d %s", code, out)
	}
	if out, _, _ := run(t, home, "", "audit", "list"); strings.Contains(out, "order_placed") {
		t.Fatal("a dry run placed or audited an order")
	}
}

// editStoredText changes one byte of the last copy of marker in home's cockpit.db, as an edit
// behind the chain's back would.
func editStoredText(t *testing.T, home, marker string) {
	t.Helper()
	path := filepath.Join(home, "cockpit.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	// Fold the WAL into the main file so the bytes are where we look for them.
	if err := db.Checkpoint(context.Background()); err != nil {
		t.Fatal(err)
	}
	db.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.LastIndex(data, []byte(marker))
	if at < 0 {
		t.Fatal("marker not found in the database file")
	}
	data[at] = 'N'
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
