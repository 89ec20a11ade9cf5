package vibeattach

import (
	"context"
	"strings"
	"syscall"
	"testing"

	"cockpit/readmodel"

	"cockpit/live"
	"cockpit/live/atomicfile"
	"cockpit/live/halt"
)

// TestQuitHaltNotDurableSaysHalted: quitting with halt when the HALT file's fsync fails
// leaves the file in force, so the quit says where the HALT is, with a warning about the
// disk, instead of failing as if nothing were written.
func TestQuitHaltNotDurableSaysHalted(t *testing.T) {
	root, clock := fixture(t)
	be := newBackend(root, clock)
	restore := atomicfile.FailSyncs(syscall.EIO)
	msg, err := be.OnQuit(context.Background(), readmodel.QuitHalt)
	restore()
	if err != nil {
		t.Fatalf("quit halt: got error %v, want the halt reported", err)
	}
	for _, want := range []string{"HALT " + root.SentinelPath(live.HaltSentinel, ""), "not known to be on disk"} {
		if !strings.Contains(msg, want) {
			t.Errorf("quit message %q lacks %q", msg, want)
		}
	}
	if !halt.IsHalted(root, broker) {
		t.Error("root not halted")
	}
}
