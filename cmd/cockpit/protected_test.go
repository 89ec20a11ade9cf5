package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReplayAgentCannotRaiseItsCap is issue 10 item 1's repro from the command line: the
// file tool on, a write root (here from COCKPIT_ALLOWED_WRITE_ROOTS, which no config check
// sees) that contains the runtime root, a replay agent that writes live/paper/mandate.json
// with max_order_notional_usd 900,000 and then buys 50,000. The write is refused and the
// order denied; the same root in config.toml stops the run naming both paths.
func TestReplayAgentCannotRaiseItsCap(t *testing.T) {
	home := fastHome(t, "[tools.files]\nenabled = true\n")
	t.Setenv("COCKPIT_ALLOWED_WRITE_ROOTS", filepath.Dir(home))
	if _, e, code := runLive(t, home, nil, "init"); code != 0 {
		t.Fatalf("init: %s", e)
	}
	mandate := filepath.Join(home, "live", "paper", "mandate.json")
	before, err := os.ReadFile(mandate)
	if err != nil {
		t.Fatal(err)
	}
	raised := regexp.MustCompile(`"max_order_notional_usd":\s*[0-9.]+`).ReplaceAllString(string(before), `"max_order_notional_usd": 900000`)
	if raised == string(before) {
		t.Fatalf("no cap to raise in:\n%s", before)
	}
	var script strings.Builder
	for _, l := range []map[string]any{
		{"t": 0, "tool": "write_file", "args": map[string]any{"path": "live/paper/mandate.json", "text": raised}},
		{"t": 0, "tool": "place_order", "args": map[string]any{"symbol": "AAPL", "side": "buy", "notional": "50000", "reason": "raised"}},
	} {
		b, _ := json.Marshal(l)
		script.Write(append(b, '\n'))
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(path, []byte(script.String()), 0o600)
	out, errOut, code := runLive(t, home, nil, "run", "--headless", "--agent", "replay", "--script", path, "--approvals", "none", "--for", "20s")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	if !strings.Contains(out, "call    write_file      DENIED path_forbidden") || strings.Contains(out, "ALLOW   buy") ||
		!strings.Contains(out, "orders placed 0") {
		t.Errorf("want the write refused and the order denied:\n%s", out)
	}
	if after, _ := os.ReadFile(mandate); string(after) != string(before) {
		t.Errorf("the mandate changed:\n%s", after)
	}
	cfg := "[tools.files]\nenabled = true\nwrite_roots = [\"" + filepath.Dir(home) + "\"]\n"
	os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600)
	_, errOut, code = runLive(t, home, nil, "run", "--headless", "--agent", "none", "--for", "1s")
	if code == 0 || !strings.Contains(errOut, "tools.files.write_roots") || !strings.Contains(errOut, filepath.Dir(home)) ||
		!strings.Contains(errOut, "overlaps the runtime root "+home) {
		t.Errorf("a config write root containing the runtime root: exit %d, %s", code, errOut)
	}
}
