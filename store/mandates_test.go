package store_test

import (
	"context"
	"path/filepath"
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
