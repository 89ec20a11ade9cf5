package store_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cockpit/live"
	"cockpit/live/livetest"
	"cockpit/live/mandatefile"
	"cockpit/store"
)

// TestMandateLedgerFromTheChain: the ledger answers with the newest commit's hash for the
// broker, ignores other brokers, and a newer commit without a hash leaves it unverified.
func TestMandateLedgerFromTheChain(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "cockpit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	root := livetest.Root(t)
	if _, ok, err := db.LastMandateHash(ctx, "paper"); ok || err != nil {
		t.Fatalf("empty chain: ok %v err %v, want none", ok, err)
	}
	livetest.CommitTo(t, db, root, "paper", "", livetest.Epoch)
	c := mandatefile.Read(ctx, root, db, "paper")
	if !c.Verified() {
		t.Fatalf("after a commit: %s (%v)", c.State, c.Err)
	}
	if _, ok, _ := db.LastMandateHash(ctx, "robinhood"); ok {
		t.Error("another broker's commit answered for robinhood")
	}
	// A commit audited without a hash (an older cockpit) makes the file unverified.
	if err := db.Record(ctx, live.AuditRecord{Kind: live.KindMandateCommitted, Outcome: live.OutcomeAccepted, Broker: "paper"}); err != nil {
		t.Fatal(err)
	}
	if c := mandatefile.Read(ctx, root, db, "paper"); c.State != live.MandateUnverified {
		t.Errorf("after a commit without a hash: %s, want unverified", c.State)
	}
}

// TestMandateLedgerSeesAnotherHandlesCommit: the ledger keeps the last commit's hash between
// orders, but a commit made through another handle on the same database (another process)
// is seen at the next read, and putting the older mandate's file back is then tampering.
func TestMandateLedgerSeesAnotherHandlesCommit(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cockpit.db")
	gateDB, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer gateDB.Close()
	otherDB, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer otherDB.Close()
	root := livetest.Root(t)
	livetest.CommitTo(t, gateDB, root, "paper", "", livetest.Epoch)
	older, err := os.ReadFile(root.MandatePath("paper"))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second read is answered from what the first one kept
		if c := mandatefile.Read(ctx, root, gateDB, "paper"); !c.Verified() {
			t.Fatalf("after the first commit: %s (%v)", c.State, c.Err)
		}
	}
	tighter := strings.Replace(livetest.MandateDoc, `"max_order_notional_usd": 5000`, `"max_order_notional_usd": 500`, 1)
	livetest.CommitTo(t, otherDB, root, "paper", tighter, livetest.Epoch)
	c := mandatefile.Read(ctx, root, gateDB, "paper")
	if !c.Verified() {
		t.Fatalf("after another handle's commit: %s (%v), want verified", c.State, c.Err)
	}
	if got, want := c.Mandate.HardCaps.MaxOrderNotionalUSD.String(), "500"; got != want {
		t.Errorf("max_order_notional_usd: got %s, want %s", got, want)
	}
	if err := os.WriteFile(root.MandatePath("paper"), older, 0o600); err != nil {
		t.Fatal(err)
	}
	if c := mandatefile.Read(ctx, root, gateDB, "paper"); c.State != live.MandateTampered {
		t.Errorf("the older mandate's file put back: %s, want tampered", c.State)
	}
}
