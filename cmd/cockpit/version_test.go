package main

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
)

// TestVersionFlag: `cockpit --version` prints the version line and exits 0 without opening
// (or creating) a runtime root; it used to fall through to `run`.
func TestVersionFlag(t *testing.T) {
	for _, args := range [][]string{
		{"--version"},
		{"-version"},
		{"--home", "ROOT", "--version"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "root")
			for i, a := range args {
				if a == "ROOT" {
					args[i] = home
				}
			}
			out, errOut, code := run(t, home, "", args...)
			if code != exitOK {
				t.Fatalf("exit = %d, want 0; stderr: %s", code, errOut)
			}
			if !strings.HasPrefix(out, "cockpit ") || !strings.Contains(out, "commit ") || !strings.Contains(out, goruntime.Version()) {
				t.Errorf("stdout = %q, want cockpit <version>, its commit and %s", out, goruntime.Version())
			}
			if _, err := os.Stat(home); !os.IsNotExist(err) {
				t.Errorf("--version touched the runtime root %s (stat err %v), want it left alone", home, err)
			}
		})
	}
}
