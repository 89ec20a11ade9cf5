package halt

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"cockpit/live"
	"cockpit/live/atomicfile"
	"cockpit/live/livetest"
)

// TestTripInForceWhenNotDurable: a Trip whose fsync fails has still put its sentinel in place,
// which halts: it says so (its path, an error that is ErrNotDurable, InForce) so callers audit
// it as a trip; a Trip that could not write at all is not in force.
func TestTripInForceWhenNotDurable(t *testing.T) {
	root := livetest.Root(t)
	restore := atomicfile.FailSyncs(syscall.EIO)
	path, err := Trip(root, live.HaltSentinel, live.GlobalScope, "cli", "stop", livetest.Epoch)
	restore()
	if !errors.Is(err, ErrNotDurable) || !errors.Is(err, syscall.EIO) || !InForce(err) {
		t.Fatalf("Trip with a failing fsync: err %v, want ErrNotDurable wrapping EIO, in force", err)
	}
	if want := root.SentinelPath(live.HaltSentinel, ""); path != want {
		t.Errorf("path: got %q, want %q", path, want)
	}
	if !IsGloballyHalted(root) {
		t.Error("not halted after a Trip that is in force")
	}

	ro := livetest.Root(t)
	if err := os.MkdirAll(ro.LiveDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ro.LiveDir(), "paper"), []byte("a file where the broker's directory goes"), 0o600); err != nil {
		t.Fatal(err)
	}
	path, err = Trip(ro, live.HaltSentinel, live.BrokerScope("paper"), "cli", "stop", livetest.Epoch)
	if err == nil || InForce(err) || path != "" {
		t.Errorf("Trip that cannot write: path %q, err %v, want no path and not in force", path, err)
	}
	if InForce(errors.New("other")) || !InForce(nil) {
		t.Error("InForce: want true only for nil and ErrNotDurable")
	}
}
