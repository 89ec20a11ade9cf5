package config

import (
	"encoding/hex"
	"fmt"
	"path/filepath"
	"time"

	"cockpit/live"
)

// PluginAgent is a WASM strategy plugin ([agents.plugin]): the module, its pinned SHA-256
// and its manifest. A module whose hash is not pinned, or differs, is refused at load.
type PluginAgent struct {
	File     string   `toml:"file"`     // the .wasm module (relative to the runtime root)
	SHA256   string   `toml:"sha256"`   // hex SHA-256 of file; empty refuses to run it
	Manifest string   `toml:"manifest"` // default: file without .wasm + ".plugin.toml"
	Interval Duration `toml:"interval"` // time between ticks (default 2s)
}

// DefaultPluginInterval is the time between a plugin's ticks when none is configured.
const DefaultPluginInterval = 2 * time.Second

// Validate checks the plugin's settings.
func (p PluginAgent) Validate() error {
	if p.SHA256 != "" {
		if b, err := hex.DecodeString(p.SHA256); err != nil || len(b) != 32 {
			return fmt.Errorf("config: agents.plugin.sha256 = %q: want 64 hex digits", p.SHA256)
		}
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
