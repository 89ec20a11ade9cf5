package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cockpit/engine/mcpserve"
)

// TestInitBrokerWritesToken: every init path creates serve-mcp's bearer token (0600), not
// only plain `init` — a fresh root with --broker, and an existing root that lacks the token.
func TestInitBrokerWritesToken(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup []string // an init run first, its token then removed
		kind  string
	}{
		{name: "fresh alpaca", kind: "alpaca"},
		{name: "fresh mcp", kind: "mcp"},
		{name: "existing root without a token", setup: []string{"init", "--broker", "mcp"}, kind: "mcp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			tok := filepath.Join(home, mcpserve.TokenFile)
			if tc.setup != nil {
				if _, e, code := runLive(t, home, nil, tc.setup...); code != exitOK {
					t.Fatalf("setup: exit %d %s", code, e)
				}
				if err := os.Remove(tok); err != nil {
					t.Fatal(err)
				}
			}
			out, errOut, code := runLive(t, home, nil, "init", "--broker", tc.kind)
			if code != exitOK {
				t.Fatalf("init --broker %s: exit %d %s %s", tc.kind, code, out, errOut)
			}
			fi, err := os.Stat(tok)
			if err != nil {
				t.Fatalf("init --broker %s wrote no token: %v (stdout %q)", tc.kind, err, out)
			}
			if got, want := fi.Mode().Perm(), os.FileMode(0o600); got != want {
				t.Errorf("token mode: got %v, want %v", got, want)
			}
			if !strings.Contains(out, mcpserve.TokenFile) {
				t.Errorf("stdout %q: want it to name %s", out, mcpserve.TokenFile)
			}
		})
	}
	if _, _, code := runLive(t, t.TempDir(), nil, "init", "--broker", "ibkr"); code != exitUsage {
		t.Errorf("init --broker ibkr: exit %d, want %d", code, exitUsage)
	}
}
