package main

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cockpit/live"
	"cockpit/live/redact"
)

// TestSecretsNeverLeaveTheProcess is issue 10 item 8's repro: a tool error that quotes
// ALPACA_API_SECRET=…, a URL password and (without any prefix) the configured LLM key is
// printed on the headless console, stored in the audit, mirrored and exported. None of the
// secret values may appear in any of them, nor anywhere in the database files.
func TestSecretsNeverLeaveTheProcess(t *testing.T) {
	home := fastHome(t, "[tools.files]\nenabled = true\n[audit]\nvibe_mirror = true\n")
	const brokerSecret, urlPass, llmKey = "hunter2-broker-secret", "pw-in-the-url", "q7w8e9r0t1y2u3i4o5p6"
	env := map[string]string{"OPENAI_API_KEY": llmKey}
	lines := []map[string]any{
		{"t": 0, "tool": "read_file", "args": map[string]any{"path": "/nowhere/ALPACA_API_SECRET=" + brokerSecret}},
		{"t": 0, "tool": "read_file", "args": map[string]any{"path": "https://u:" + urlPass + "@host.example/x"}},
		{"t": 0, "tool": "read_file", "args": map[string]any{"path": "/nowhere/echoed/" + llmKey}},
	}
	var script strings.Builder
	for _, l := range lines {
		b, _ := json.Marshal(l)
		script.Write(b)
		script.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(path, []byte(script.String()), 0o600)
	out, errOut, code := runLive(t, home, env, "run", "--headless", "--agent", "replay", "--script", path, "--for", "20s")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	if strings.Count(out, "read_file       DENIED") != 3 || strings.Count(out, redact.Redacted) < 3 {
		t.Errorf("the console does not show the redacted tool errors:\n%s", out)
	}
	exported := filepath.Join(t.TempDir(), "audit.jsonl")
	if _, e, code := runLive(t, home, env, "audit", "export", "--format", "jsonl", "--out", exported); code != 0 {
		t.Fatalf("export: %s", e)
	}
	texts := map[string]string{"console": out + errOut}
	for _, p := range []string{exported, filepath.Join(home, "cockpit.db"), filepath.Join(home, "cockpit.db-wal"),
		filepath.Join(home, "cockpit.log"), filepath.Join(home, "live", "audit.jsonl"), filepath.Join(home, "live", "audit_chain.jsonl")} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		texts[p] = string(b)
	}
	if !strings.Contains(texts[exported], "read_file") {
		t.Fatalf("the export has no read_file calls:\n%s", texts[exported])
	}
	for where, text := range texts {
		for _, secret := range []string{brokerSecret, urlPass, llmKey} {
			if strings.Contains(text, secret) {
				t.Errorf("%s holds %q", where, secret)
			}
		}
	}
}

// TestLogIsRedacted: cockpit.log goes through the redacting handler.
func TestLogIsRedacted(t *testing.T) {
	root, err := live.NewRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := NewApp(strings.NewReader(""), &strings.Builder{}, &strings.Builder{})
	log, done := a.logger(root)
	log.Error("audit write failed", "err", "dial https://u:log-password@db.example: ALPACA_API_SECRET=log-secret-value",
		slog.String("api_key", "sk-plainvalue"))
	done()
	b, _ := os.ReadFile(filepath.Join(root.Dir(), "cockpit.log"))
	for _, s := range []string{"log-password", "log-secret-value", "sk-plainvalue"} {
		if strings.Contains(string(b), s) {
			t.Errorf("cockpit.log holds %q:\n%s", s, b)
		}
	}
}
