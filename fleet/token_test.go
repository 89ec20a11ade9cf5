package fleet_test

import (
	"os"
	"path/filepath"
	"testing"

	"cockpit/fleet"
)

// TestFleetToken: the embedded server's token file is made once (0600) and read back; a file
// others may read is refused.
func TestFleetToken(t *testing.T) {
	dir := t.TempDir()
	tok, err := fleet.EnsureToken(dir)
	if err != nil || len(tok) != 64 {
		t.Fatalf("EnsureToken = %q %v, want 64 hex digits", tok, err)
	}
	fi, err := os.Stat(filepath.Join(dir, fleet.TokenFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file %v %v, want mode 0600", fi, err)
	}
	if again, err := fleet.ReadToken(dir); err != nil || again != tok {
		t.Errorf("ReadToken = %q %v, want %q", again, err, tok)
	}
	if err := os.Chmod(filepath.Join(dir, fleet.TokenFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := fleet.ReadToken(dir); err == nil {
		t.Error("ReadToken of a 0644 file: want a refusal")
	}
}

// TestFleetLoopbackURL: only urls whose every server is on loopback are the local server.
func TestFleetLoopbackURL(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{"nats://127.0.0.1:4222", true},
		{"nats://localhost:4222", true},
		{"nats://[::1]:4222", true},
		{"nats://127.0.0.1:4222,nats://10.0.0.2:4222", false},
		{"tls://n1:4222", false},
		{"", false},
	} {
		if got := fleet.LoopbackURL(tc.url); got != tc.want {
			t.Errorf("LoopbackURL(%q) = %v, want %v", tc.url, got, tc.want)
		}
	}
}
