package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStatusSeesEveryHalt: a dangling HALT symlink is a halt in status, and a sentinel in a
// directory that is not a broker key is a warning.
func TestStatusSeesEveryHalt(t *testing.T) {
	home := t.TempDir()
	run(t, home, "", "status")
	dir := filepath.Join(home, "live")
	os.MkdirAll(filepath.Join(dir, "PAPER"), 0o700)
	os.WriteFile(filepath.Join(dir, "PAPER", "HALT"), nil, 0o644)
	if err := os.Symlink(filepath.Join(home, "nowhere"), filepath.Join(dir, "HALT")); err != nil {
		t.Fatal(err)
	}
	v := statusJSON(t, home)
	if g := v["global"].(map[string]any); g["halted"] != true {
		t.Errorf("global halted = %v with a dangling live/HALT symlink, want true", g["halted"])
	}
	ws, _ := v["warnings"].([]any)
	if len(ws) != 1 || !strings.Contains(ws[0].(string), filepath.Join("PAPER", "HALT")) {
		t.Errorf("warnings %v, want one naming PAPER/HALT", ws)
	}
	out, _, _ := run(t, home, "", "status")
	if !strings.Contains(out, "WARNING:") || !strings.Contains(out, "PAPER/HALT") {
		t.Errorf("status text has no warning:\n%s", out)
	}
}
