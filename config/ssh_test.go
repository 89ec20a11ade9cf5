package config

import (
	"strings"
	"testing"
	"time"
)

// TestSSHIdleTimeout: [ssh] idle_timeout sets serve-ssh's idle timeout (15m when unset); a
// negative one is refused naming the key.
func TestSSHIdleTimeout(t *testing.T) {
	tests := []struct {
		toml    string
		want    time.Duration
		wantErr string
	}{
		{"", DefaultSSHIdleTimeout, ""},
		{"[ssh]\nidle_timeout = \"5m\"", 5 * time.Minute, ""},
		{"[ssh]\nidle_timeout = \"-1s\"", 0, "ssh.idle_timeout = -1s"},
		{"[ssh]\nidle = \"5m\"", 0, "unknown key ssh.idle"},
	}
	for _, tt := range tests {
		c, err := Parse([]byte(tt.toml), Default())
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: err = %v, want %q", tt.toml, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tt.toml, err)
		}
		if got := c.SSH.Idle(); got != tt.want {
			t.Errorf("%q: Idle() = %s, want %s", tt.toml, got, tt.want)
		}
	}
}
