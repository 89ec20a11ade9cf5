package main

import (
	"strings"
	"syscall"
	"testing"

	"cockpit/live/atomicfile"
)

// TestHaltNotDurableStillAudited: `cockpit halt` on a disk whose fsync fails leaves the HALT
// file in place, so it reports the halt (exit 0), warns that it is not known to be on disk,
// and writes the halt_tripped record (it exited 1 saying it could not write the sentinel, and
// with no record; a second run then said "Already halted … nothing changed").
func TestHaltNotDurableStillAudited(t *testing.T) {
	home := t.TempDir()
	restore := atomicfile.FailSyncs(syscall.EIO)
	out, errOut, code := run(t, home, "", "halt", "--reason", "disk trouble")
	restore()
	if code != exitOK || !strings.Contains(out, "Trading halted (global): disk trouble") {
		t.Fatalf("halt: exit %d, stdout %q, stderr %q; want exit 0 and the halt reported", code, out, errOut)
	}
	if !strings.Contains(errOut, "not known to be on disk") {
		t.Errorf("stderr: got %q, want a warning that the sentinel is not known to be on disk", errOut)
	}
	if g := statusJSON(t, home)["global"].(map[string]any); g["halted"] != true {
		t.Errorf("status global: got %v, want halted", g)
	}
	list, _, code := run(t, home, "", "audit", "list", "--json", "--type", "halt_tripped")
	if code != exitOK || !strings.Contains(list, "disk trouble") {
		t.Errorf("audit list (exit %d): no halt_tripped record of the halt:\n%s", code, list)
	}
}
