package main

import (
	"strings"
	"testing"
)

// TestHeadlessSaysTheDefaultMandateAtStart: the default paper mandate a first run commits is
// said on the console at start (after the header, before the first event), not on stderr after
// the run (issue 12).
func TestHeadlessSaysTheDefaultMandateAtStart(t *testing.T) {
	home := fastHome(t, "")
	out, errOut, code := runLive(t, home, nil, "run", "--headless", "--agent", "none", "--for", "300ms")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	if strings.Contains(errOut, "committed the default paper mandate") {
		t.Errorf("stderr has the note (the screen hides it until quit): %q", errOut)
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "cockpit headless on paper") ||
		!strings.HasPrefix(lines[1], "committed the default paper mandate ") {
		t.Errorf("got the first lines %q, want the header then the mandate note", lines[:min(2, len(lines))])
	}
	// A second run commits nothing and says nothing about it.
	out, _, _ = runLive(t, home, nil, "run", "--headless", "--agent", "none", "--for", "100ms")
	if strings.Contains(out, "committed the default") {
		t.Errorf("second run repeats the note:\n%s", out)
	}
}
