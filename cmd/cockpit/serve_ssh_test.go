package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"cockpit/live"
)

// writeAuthorizedKeys writes <home>/ssh/authorized_keys with lines, "KEY" in each replaced
// by a fresh ed25519 public key.
func writeAuthorizedKeys(t *testing.T, home string, lines ...string) {
	t.Helper()
	for i, l := range lines {
		pub, _, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		k, _ := gossh.NewPublicKey(pub)
		lines[i] = strings.Replace(l, "KEY", strings.TrimSpace(string(gossh.MarshalAuthorizedKey(k))), 1)
	}
	dir := filepath.Join(home, "ssh")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestServeSSHRefusesToStart: serve-ssh says why it will not start, before it listens or
// opens the account: no authorized_keys, a key line without a role (named by its line), a
// non-loopback address without --allow-remote.
func TestServeSSHRefusesToStart(t *testing.T) {
	tests := []struct {
		name  string
		keys  []string // nil: no file
		args  []string
		lock  bool
		wants []string
	}{
		{"no authorized_keys", nil, nil, false, []string{"authorized_keys", "role=viewer|operator|admin"}},
		{"a line without a role", []string{"role=admin KEY admin@desk", "KEY bob@phone"}, nil, false, []string{"line 2: no role"}},
		{"empty file", []string{"# nobody yet"}, nil, false, []string{"lists no key"}},
		{"not loopback", []string{"role=viewer KEY a"}, []string{"--listen", "0.0.0.0:0"}, false, []string{"not a loopback address", "--allow-remote"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if tt.keys != nil {
				writeAuthorizedKeys(t, home, tt.keys...)
			}
			if tt.lock {
				release, err := lockPaper(live.Root(home), live.PaperBroker)
				if err != nil {
					t.Fatal(err)
				}
				defer release()
			}
			_, errOut, code := run(t, home, "", append([]string{"serve-ssh", "--agent", "none"}, tt.args...)...)
			if code != exitFailure {
				t.Fatalf("exit %d, want %d; stderr %q", code, exitFailure, errOut)
			}
			for _, w := range tt.wants {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q, want it to contain %q", errOut, w)
				}
			}
		})
	}
}
