package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cockpit/config"
	"cockpit/live"
)

// writeConfig writes config.toml into a fresh root.
func writeConfig(t *testing.T, body string) live.Root {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return live.Root(home)
}

func TestConfiguredBrokerGuards(t *testing.T) {
	const table = `[cockpit]
broker = "acme"
agent = "none"
[brokers.acme]
kind = "mcp"
command = "acme-mcp"
mode = "%s"
`
	tests := []struct {
		name, mode string
		allowLive  bool
		register   bool
		wantErr    string
		wantLive   bool
	}{
		{"live without --live is refused", "live", false, true, ErrLiveNotConfirmed.Error(), true},
		{"a kind with no connector is named", "paper", false, false, `brokers.acme.kind = "mcp": this build has no such connector`, false},
		{"paper opens through its connector", "paper", false, true, "", false},
		{"live with --live opens", "live", true, true, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			saved := brokerOpeners
			t.Cleanup(func() { brokerOpeners = saved })
			brokerOpeners = map[string]BrokerOpener{}
			opened := false
			if tt.register {
				registerBroker(config.KindMCP, func(rt *Runtime, key string, bc config.BrokerConfig) (live.Broker, error) {
					opened = true
					return nil, errors.New("stop here")
				})
			}
			root := writeConfig(t, strings.Replace(table, "%s", tt.mode, 1))
			env := testOptions(string(root)).Env
			env.AllowLive = tt.allowLive
			rt, err := OpenRuntime(env, root)
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close()
			if got := rt.IsLive("acme"); got != tt.wantLive {
				t.Errorf("IsLive: got %v, want %v", got, tt.wantLive)
			}
			release, err := rt.OwnAccount("acme")
			if err != nil {
				t.Fatalf("OwnAccount: %v", err)
			}
			if _, err2 := rt.OwnAccount("acme"); !errors.Is(err2, ErrAccountInUse) {
				t.Errorf("second OwnAccount: got %v, want ErrAccountInUse", err2)
			}
			_, _, err = rt.OpenOwnedBroker("acme", release)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || opened {
					t.Fatalf("OpenOwnedBroker: got %v (connector called: %v), want %q before the connector", err, opened, tt.wantErr)
				}
				return
			}
			if !opened {
				t.Fatalf("OpenOwnedBroker: got %v without calling the connector", err)
			}
		})
	}
	if (&Runtime{}).IsLive("unknown") != true {
		t.Error("IsLive(unknown): got false, want true (fail closed)")
	}
}
