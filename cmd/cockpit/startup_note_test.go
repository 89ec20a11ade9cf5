package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cockpit/readmodel"

	"cockpit/session"
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

// TestTamperedMandateWarnedAtStart: a tampered mandate (DV13) is a start-up note, printed on the
// headless console (not stderr, which the screen hides) and handed to the screen as a warning.
func TestTamperedMandateWarnedAtStart(t *testing.T) {
	home := fastHome(t, "")
	if _, errOut, code := runLive(t, home, nil, "run", "--headless", "--agent", "none", "--for", "100ms"); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errOut)
	}
	path := filepath.Join(home, "live", "paper", "mandate.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, usdCaps.ReplaceAll(data, []byte(`"$1": 900000`)), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, _ := runLive(t, home, nil, "run", "--headless", "--agent", "none", "--for", "100ms")
	if strings.Contains(errOut, "mandate is TAMPERED") {
		t.Errorf("stderr has the warning (the screen hides it): %q", errOut)
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[1], "warning: the paper mandate is TAMPERED") {
		t.Errorf("got the first lines %q, want the header then the tampered-mandate warning", lines[:min(2, len(lines))])
	}
	a := NewApp(strings.NewReader(""), &syncBuffer{}, &syncBuffer{})
	a.Getenv = func(k string) string { return map[string]string{"COCKPIT_HOME": home}[k] }
	s, err := a.openSession("", session.Options{Agent: "none", Approvals: "tui"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := s.Notes(); len(n) != 1 || !strings.HasPrefix(n[0], readmodel.WarnNote+"the paper mandate is TAMPERED") {
		t.Errorf("got the notes %q, want the screen's warning", n)
	}
}
