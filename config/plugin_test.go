package config

import (
	"strings"
	"testing"
	"time"

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

// The manifest is pinned beside the module, and memory_pages and tick_budget have operator
// ceilings with safe defaults; a bad pin or ceiling is refused naming the key and the value.
// (Regression, issue 27 item 3: the section had no manifest pin and no ceilings.)
func TestPluginAgentManifestPinAndCeilings(t *testing.T) {
	def := Default().Agents.Plugin
	if def.MaxMemoryPages != DefaultPluginMaxMemoryPages || def.MaxTickBudget.Duration != DefaultPluginMaxTickBudget || def.ManifestSHA256 != "" {
		t.Errorf("defaults = %+v, want no manifest pin, %d pages, %s", def, DefaultPluginMaxMemoryPages, DefaultPluginMaxTickBudget)
	}
	pin := strings.Repeat("0f", 32)
	cfg, err := Parse([]byte("[agents.plugin]\nmanifest_sha256 = \""+pin+"\"\nmax_memory_pages = 4096\nmax_tick_budget = \"2s\"\n"), Default())
	if err != nil {
		t.Fatal(err)
	}
	if p := cfg.Agents.Plugin; p.ManifestSHA256 != pin || p.MaxMemoryPages != 4096 || p.MaxTickBudget.Duration != 2*time.Second {
		t.Errorf("parsed = %+v, want the manifest pin, 4096 pages, 2s", p)
	}
	tests := []struct{ name, toml, want string }{
		{"short manifest pin", "manifest_sha256 = \"abc\"", `agents.plugin.manifest_sha256 = "abc"`},
		{"non-hex manifest pin", "manifest_sha256 = \"" + strings.Repeat("zz", 32) + "\"", "agents.plugin.manifest_sha256"},
		{"no memory", "max_memory_pages = 0", "agents.plugin.max_memory_pages = 0: want 1-65536"},
		{"over 4 GiB", "max_memory_pages = 65537", "agents.plugin.max_memory_pages = 65537"},
		{"negative memory", "max_memory_pages = -1", "max_memory_pages"},
		{"no budget", "max_tick_budget = \"0s\"", `agents.plugin.max_tick_budget = "0s": want a duration in (0, 10s]`},
		{"negative budget", "max_tick_budget = \"-1s\"", "agents.plugin.max_tick_budget"},
		{"over the runtime's 10s", "max_tick_budget = \"11s\"", `agents.plugin.max_tick_budget = "11s"`},
	}
	for _, tt := range tests {
		if _, err := Parse([]byte("[agents.plugin]\n"+tt.toml+"\n"), Default()); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want an error naming %q", tt.name, err, tt.want)
		}
	}
}
