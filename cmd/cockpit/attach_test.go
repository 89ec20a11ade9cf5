package main

import (
	"strings"
	"testing"

	"cockpit/live/livetest"
)

// TestAttachRefusesNonVibeRoots: `attach --vibe DIR` names what is missing from a directory
// that is not a Vibe-Trading root, and gets past detection on one (here to the terminal check).
func TestAttachRefusesNonVibeRoots(t *testing.T) {
	home := t.TempDir()
	if _, e, code := runLive(t, home, nil, "attach"); code != exitUsage || !strings.Contains(e, "--vibe DIR is required") {
		t.Errorf("attach without --vibe: exit %d %q, want a usage error naming --vibe", code, e)
	}
	plain := t.TempDir()
	if _, e, code := runLive(t, home, nil, "attach", "--vibe", plain); code != exitFailure || !strings.Contains(e, "is not a Vibe-Trading root: "+plain+"/live is missing") {
		t.Errorf("attach --vibe %s: exit %d %q, want a refusal naming live/", plain, code, e)
	}
	root := livetest.Root(t)
	livetest.Commit(t, root, "robinhood", "", livetest.Epoch)
	_, e, code := runLive(t, home, nil, "attach", "--vibe", root.Dir())
	if code != exitFailure || !strings.Contains(e, "the screen needs a terminal") || !strings.Contains(e, "broker robinhood is a Vibe-Trading root") {
		t.Errorf("attach --vibe fixture: exit %d %q, want detection to pass (broker robinhood), then the terminal check", code, e)
	}
}
