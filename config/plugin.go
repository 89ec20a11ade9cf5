package config

import (
	"encoding/hex"
	"fmt"
	"path/filepath"
	"time"

	"cockpit/live"
)

// PluginAgent is a WASM strategy plugin ([agents.plugin]): the module and its manifest,
// each pinned by SHA-256, and the operator's ceilings on what the manifest may ask. A file
// whose hash is not pinned, or differs, and a manifest asking more than a ceiling, are
// refused at load.
type PluginAgent struct {
	File           string   `toml:"file"`             // the .wasm module (relative to the runtime root)
	SHA256         string   `toml:"sha256"`           // hex SHA-256 of file; empty refuses to run it
	Manifest       string   `toml:"manifest"`         // default: file without .wasm + ".plugin.toml"
	ManifestSHA256 string   `toml:"manifest_sha256"`  // hex SHA-256 of the manifest; empty refuses to run it
	MaxMemoryPages uint32   `toml:"max_memory_pages"` // ceiling on the manifest's memory_pages (64 KiB pages)
	MaxTickBudget  Duration `toml:"max_tick_budget"`  // ceiling on the manifest's tick_budget
	Interval       Duration `toml:"interval"`         // time between ticks (default 2s)
}

// Plugin defaults: the time between ticks, and the ceilings (64 MiB of memory, 1 s a tick;
// the example plugin asks 32 MiB and 250 ms). The ceilings cannot be raised past what a
// 32-bit module can address (65,536 pages) or the longest tick the runtime allows (10 s).
const (
	DefaultPluginInterval       = 2 * time.Second
	DefaultPluginMaxMemoryPages = 1024
	DefaultPluginMaxTickBudget  = time.Second
	maxPluginMemoryPages        = 65536
	maxPluginTickBudget         = 10 * time.Second
)

// DefaultPluginAgent is the plugin section before config.toml: nothing pinned, default ceilings.
func DefaultPluginAgent() PluginAgent {
	return PluginAgent{MaxMemoryPages: DefaultPluginMaxMemoryPages, MaxTickBudget: Duration{DefaultPluginMaxTickBudget}}
}

// Validate checks the plugin's settings.
func (p PluginAgent) Validate() error {
	for _, pin := range [][2]string{{"sha256", p.SHA256}, {"manifest_sha256", p.ManifestSHA256}} {
		if pin[1] == "" {
			continue
		}
		if b, err := hex.DecodeString(pin[1]); err != nil || len(b) != 32 {
			return fmt.Errorf("config: agents.plugin.%s = %q: want 64 hex digits (the file's SHA-256)", pin[0], pin[1])
		}
	}
	if p.MaxMemoryPages == 0 || p.MaxMemoryPages > maxPluginMemoryPages {
		return fmt.Errorf("config: agents.plugin.max_memory_pages = %d: want 1-%d (64 KiB pages; default %d)", p.MaxMemoryPages, maxPluginMemoryPages, DefaultPluginMaxMemoryPages)
	}
	if d := p.MaxTickBudget.Duration; d <= 0 || d > maxPluginTickBudget {
		return fmt.Errorf("config: agents.plugin.max_tick_budget = %q: want a duration in (0, %s] (default %s)", p.MaxTickBudget, maxPluginTickBudget, DefaultPluginMaxTickBudget)
	}
	if p.Interval.Duration < 0 {
		return fmt.Errorf("config: agents.plugin.interval = %s: cannot be negative", p.Interval)
	}
	return nil
}

// Paths resolves the module and manifest paths: file (when given) overrides the configured
// module, and relative configured paths are relative to the runtime root.
func (p PluginAgent) Paths(root live.Root, file string) (module, manifest string) {
	abs := func(s string) string {
		if s == "" || filepath.IsAbs(s) {
			return s
		}
		return filepath.Join(root.Dir(), s)
	}
	module, manifest = abs(p.File), abs(p.Manifest)
	if file != "" {
		module = file
	}
	return module, manifest
}

// Every is the time between ticks.
func (p PluginAgent) Every() time.Duration {
	if p.Interval.Duration > 0 {
		return p.Interval.Duration
	}
	return DefaultPluginInterval
}
