package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPBrokerLastWords: a broker's stdio server that prints why it cannot start and exits 3
// is reported with its last stderr line and exit status by status, by the run that cannot open
// it, and in cockpit.log — not as a bare "client is closing: EOF".
func TestMCPBrokerLastWords(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	home := t.TempDir()
	cfg := fmt.Sprintf(`[cockpit]
broker = "ib"
[brokers.ib]
kind = "mcp"
mode = "paper"
timeout = "20s"
profile = "alpaca"
command = %q
args = ["-c", "echo 'boom: missing API key' >&2; exit 3"]
`, sh)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, "live", "ib"), 0o700); err != nil {
		t.Fatal(err)
	}
	const words, exit = "boom: missing API key", "exit status 3"
	st, stErr, _ := runLive(t, home, nil, "status", "--broker", "ib")
	if !strings.Contains(st, words) || !strings.Contains(st, exit) {
		t.Errorf("status does not quote the server (%q, %q):\n%s%s", words, exit, st, stErr)
	}
	out, errOut, code := runLive(t, home, nil, "run", "--headless", "--agent", "none", "--for", "1s")
	if code == exitOK || !strings.Contains(errOut, words) || !strings.Contains(errOut, exit) {
		t.Errorf("run: exit %d, want a failure quoting the server (%q, %q):\n%s%s", code, words, exit, out, errOut)
	}
	log, err := os.ReadFile(filepath.Join(home, "cockpit.log"))
	if err != nil || !strings.Contains(string(log), "mcp broker server ended") || !strings.Contains(string(log), words) {
		t.Errorf("cockpit.log (%v) lacks the server's end:\n%s", err, log)
	}
}
