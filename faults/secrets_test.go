package faults

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/session"
	"cockpit/tui"
)

// TestSeededSecretsNowhere runs a session whose environment holds an LLM key, sends orders
// whose stated reasons quote it, an API key and a bearer token, draws the screen from the
// session's own backend, closes the session, and looks for the secrets in the captured frame
// and in every file of the runtime root: the database (and its WAL), the Vibe-Trading mirror
// and the log.
func TestSeededSecretsNowhere(t *testing.T) {
	const llmKey, apiKey, bearer = "q7w8e9r0t1y2u3i4o5p6-seeded", "sk-live-9f8e7d6c5b4a39281706bbbb", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2VlZGVk"
	secrets := []string{llmKey, apiKey, bearer}
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.toml"), []byte("[audit]\nvibe_mirror = true\n"), 0o600)
	env := map[string]string{"OPENAI_API_KEY": llmKey}
	s, err := session.Open(session.Options{Env: session.Env{Now: time.Now, Getenv: func(k string) string { return env[k] }, Stderr: io.Discard},
		Root: live.Root(home), Agent: "none", Approvals: "tui"})
	if err != nil {
		t.Fatal(err)
	}
	reason := "the key is " + llmKey + ", api_key=" + apiKey + ", Authorization: Bearer " + bearer
	for _, n := range []string{"100", "6000"} { // one accepted, one waiting for review
		in := notional(n)
		d := s.Gate().Submit(ctx, gate.Submission{Broker: s.Broker(), BrokerKey: s.Key(), Intent: &in, Reason: reason,
			Actor: live.Agent("strategy", s.ID())})
		if d.AuditErr != nil {
			t.Fatal(d.AuditErr)
		}
		s.Runtime().Log.Info("decision", "reason", reason)
	}
	be := s.Backend()
	m, err := tui.New(tui.Options{Backend: be, Now: time.Now, Theme: "no-color", Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 50})
	m.Update(tui.SnapshotMsg{Snapshot: be.Snapshot(ctx), OneOff: true})
	frame := ansi.Strip(m.Render())
	if !strings.Contains(frame, "SPY") {
		t.Fatalf("the frame does not show the orders; nothing was checked:\n%s", frame)
	}
	s.Close()
	for _, sec := range secrets {
		if strings.Contains(frame, sec) {
			t.Fatalf("the screen shows the secret %q:\n%s", sec, frame)
		}
	}
	checked := 0
	filepath.WalkDir(home, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		checked++
		for _, sec := range secrets {
			if bytes.Contains(data, []byte(sec)) {
				t.Errorf("%s contains the secret %q", path, sec)
			}
		}
		return nil
	})
	for _, want := range []string{"cockpit.db", "cockpit.log"} {
		if _, err := os.Stat(filepath.Join(home, want)); err != nil {
			t.Errorf("%s was not written: %v", want, err)
		}
	}
	if mirrors, _ := filepath.Glob(filepath.Join(live.Root(home).LiveDir(), "*.jsonl")); len(mirrors) == 0 {
		t.Error("no Vibe-Trading mirror was written")
	}
	if checked < 5 {
		t.Fatalf("only %d files checked", checked)
	}
}
