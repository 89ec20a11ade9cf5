package store

import (
	"context"
	"errors"
	"testing"

	"cockpit/live"
)

// TestProbeSeesATempTrigger: a TEMP trigger on main.events lives in sqlite_temp_master and
// moves only the temp schema's cookie; the probe's cache looked at neither, so a cached probe
// passed while the trigger refused every audit insert (the order would go, its record fail).
// Reachable only by SQL on the store's own write connection, which nothing does today.
func TestProbeSeesATempTrigger(t *testing.T) {
	db := mustOpen(t, "")
	ctx := context.Background()
	if err := db.BeginProbed(ctx, probeEntry("warm")); err != nil { // full probe; cached from here
		t.Fatal(err)
	}
	if _, err := db.w.Exec(`CREATE TEMP TRIGGER block BEFORE INSERT ON main.events BEGIN SELECT RAISE(FAIL, 'refused'); END`); err != nil {
		t.Fatal(err)
	}
	probeErr := db.BeginProbed(ctx, probeEntry("cached"))
	recErr := db.Record(ctx, live.AuditRecord{Time: db.now(), Actor: live.System("test", ""), Kind: "note"})
	if recErr == nil {
		t.Fatal("setup: the audit record was not refused")
	}
	db.probedSchema.Store(0) // what the probe says without the cache
	fullErr := db.BeginProbed(ctx, probeEntry("full"))
	if !errors.Is(fullErr, live.ErrAuditProbe) {
		t.Fatalf("setup: the full probe did not refuse (%v)", fullErr)
	}
	if !errors.Is(probeErr, live.ErrAuditProbe) {
		t.Errorf("cached probe with a TEMP trigger refusing inserts: got %v, want an audit probe failure (the audit record fails: %v; the full probe: %v)",
			probeErr, recErr, fullErr)
	}
}
