package config

import (
	"strings"
	"testing"

	"cockpit/live"
)

func TestPluginAgentSection(t *testing.T) {
	cfg, err := Parse([]byte("[cockpit]\nagent = \"plugin\"\n[agents.plugin]\nfile = \"p/m.wasm\"\nsha256 = \""+strings.Repeat("0f", 32)+"\"\n"), Default())
	if err != nil {
		t.Fatal(err)
	}
	mod, man := cfg.Agents.Plugin.Paths(live.Root("/r"), "")
	if mod != "/r/p/m.wasm" || man != "" {
		t.Errorf("paths = %q %q, want /r/p/m.wasm and the default manifest", mod, man)
	}
	if mod, _ := cfg.Agents.Plugin.Paths(live.Root("/r"), "x.wasm"); mod != "x.wasm" {
		t.Errorf("--plugin did not override the module: %q", mod)
	}
	if got := cfg.Agents.Plugin.Every(); got != DefaultPluginInterval {
		t.Errorf("interval = %s, want %s", got, DefaultPluginInterval)
	}
	for _, bad := range []string{"[agents.plugin]\nsha256 = \"abc\"\n", "[agents.plugin]\nsha256 = \"" + strings.Repeat("zz", 32) + "\"\n"} {
		if _, err := Parse([]byte(bad), Default()); err == nil || !strings.Contains(err.Error(), "agents.plugin.sha256") {
			t.Errorf("%q: got %v, want an agents.plugin.sha256 error", bad, err)
		}
	}
}
