package supervise

import (
	"context"
	"syscall"
	"testing"

	"cockpit/readmodel"

	"cockpit/live"
	"cockpit/live/atomicfile"
	"cockpit/live/halt"
)

// TestFlattenOwnerGoneHaltNotDurable: a supervisor's flatten with the owner gone halts
// the broker, then flattens itself. When the HALT file's fsync fails, the HALT is in force
// (halt.InForce), so the supervisor flattens itself (FlattenWith took HaltBroker's ErrNotDurable
// for a failure and returned: nobody flattened).
func TestFlattenOwnerGoneHaltNotDurable(t *testing.T) {
	home := t.TempDir()
	_, stop := owner(t, home)
	sup := supervisor(t, home)
	eventually(t, sup, "the owner", func(s readmodel.Snapshot) bool { return s.Supervising != "" && !s.OwnerGone })
	stop()
	// (With a healthy disk the same call returns a verified report: the owner-gone path works.)
	restore := atomicfile.FailSyncs(syscall.EIO)
	rep := sup.FlattenWith(context.Background(), true, nil)
	restore()
	if !halt.IsHalted(live.Root(home), "paper") {
		t.Fatal("not halted: the setup did not put the HALT in place")
	}
	if !rep.Verified {
		t.Errorf("flatten with the owner gone and the HALT in force but not durable: %q; want the supervisor's own verified flatten", rep.Summary())
	}
}
