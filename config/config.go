// Package config reads cockpit's operator configuration, <root>/config.toml: defaults, then
// the file, then validation. An unknown key is an error that names it, so a typo never turns a
// limit off silently.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"cockpit/internal/strictmode"
	"cockpit/live"
	"cockpit/live/money"
)

// Config is the whole file.
type Config struct {
	Cockpit Cockpit                 `toml:"cockpit"`
	Paper   Paper                   `toml:"paper"`
	Audit   Audit                   `toml:"audit"`
	Policy  Policy                  `toml:"policy"`
	Agents  Agents                  `toml:"agents"`
	Tools   Tools                   `toml:"tools"`
	TUI     TUI                     `toml:"tui"`
	SSH     SSH                     `toml:"ssh"`
	Brokers map[string]BrokerConfig `toml:"brokers"` // real brokers by key; cockpit.broker picks one
	Fleet   Fleet                   `toml:"fleet"`   // off without a url (issue 16)
	Notify  Notify                  `toml:"notify"`  // one-way notifications; no sinks = none (issue 29)
	Metrics Metrics                 `toml:"metrics"` // the Prometheus endpoint; off without a listen address (issue 31)
}

// Cockpit is the run's shape.
type Cockpit struct {
	Broker    string `toml:"broker"`    // broker key; "paper" is the embedded paper broker
	Agent     string `toml:"agent"`     // strategy | replay | llm | none
	Approvals string `toml:"approvals"` // tui (a human answers) | none (no approver: breaches are denied)
	OnQuit    string `toml:"on_quit"`   // halt | leave | "" (halt for live brokers, leave for paper)
}

// Paper configures the embedded paper broker.
type Paper struct {
	Seed      int64        `toml:"seed"`
	Cash      money.Amount `toml:"cash"`
	TimeScale float64      `toml:"time_scale"` // simulated seconds per wall-clock second
	Replay    string       `toml:"replay"`     // CSV of bars to replay ("sample" = the bundled set); "" = random walk
}

// Audit configures the audit trail.
type Audit struct {
	VibeMirror bool `toml:"vibe_mirror"` // also write live/audit.jsonl and live/audit_chain.jsonl
}

// TUI configures the screen.
type TUI struct {
	Theme string            `toml:"theme"` // auto | dark | light | high-contrast | no-color
	Keys  map[string]string `toml:"keys"`  // action → key, e.g. approve = "a"
	Mouse bool              `toml:"mouse"` // clicks focus panes and select rows, the wheel scrolls (default on)
}

// Default is the configuration of a fresh runtime root: the paper broker, the built-in
// strategy agent, a human approver, and on quit halting live brokers (leaving paper orders).
func Default() Config {
	return Config{
		Cockpit: Cockpit{Broker: live.PaperBroker, Agent: "strategy", Approvals: "tui"},
		Paper:   Paper{Seed: 1, Cash: money.FromInt(100_000), TimeScale: 30},
		Policy:  DefaultPolicy(),
		Agents:  DefaultAgents(),
		Tools:   DefaultTools(),
		TUI:     TUI{Theme: "auto", Mouse: true},
		Notify:  DefaultNotify(),
	}
}

// Path returns <root>/config.toml.
func Path(root live.Root) string { return filepath.Join(root.Dir(), "config.toml") }

// Load reads <root>/config.toml over the defaults; a missing file means the defaults. A file
// or root that someone other than the user (or root) owns or may write is refused before it
// is read (strictmode), and so are roots that overlap the runtime root (ValidateRoots).
func Load(root live.Root) (Config, error) {
	cfg := Default()
	if err := strictmode.Check(root.Dir(), Path(root)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return cfg, fmt.Errorf("config: %w", err)
	}
	data, err := os.ReadFile(Path(root))
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, cfg.Validate()
	}
	if err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	if cfg, err = Parse(data, cfg); err != nil {
		return cfg, err
	}
	for _, k := range sortedBrokerKeys(cfg.Brokers) {
		if b := cfg.Brokers[k]; b.Kind == KindMCP && b.ProfileFile != "" {
			if _, err := b.BrokerProfile(k); err != nil {
				return cfg, fmt.Errorf("config: [brokers.%s]: %w", k, err)
			}
		}
	}
	return cfg, cfg.ValidateRoots(root)
}

// Parse decodes TOML over base and validates the result.
func Parse(data []byte, base Config) (Config, error) {
	cfg := base
	md, err := toml.Decode(string(data), &cfg)
	if err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return cfg, fmt.Errorf("config: unknown key %s (check the spelling; `cockpit init` writes a commented template)", strings.Join(keys, ", "))
	}
	return cfg, cfg.Validate()
}

// Validate checks every field and names the first bad one with its value.
func (c Config) Validate() error {
	bad := func(key string, value any, want string) error {
		return fmt.Errorf("config: %s = %v: %s", key, value, want)
	}
	if _, err := live.NormalizeBroker(c.Cockpit.Broker); err != nil {
		return bad("cockpit.broker", fmt.Sprintf("%q", c.Cockpit.Broker), err.Error())
	}
	switch c.Cockpit.Agent {
	case "strategy", "replay", "llm", "plugin", "none":
	default:
		return bad("cockpit.agent", fmt.Sprintf("%q", c.Cockpit.Agent), "want strategy, replay, llm, plugin or none")
	}
	switch c.Cockpit.Approvals {
	case "tui", "none":
	default:
		return bad("cockpit.approvals", fmt.Sprintf("%q", c.Cockpit.Approvals), "want tui or none")
	}
	switch c.Cockpit.OnQuit {
	case "halt", "leave", "":
	default:
		return bad("cockpit.on_quit", fmt.Sprintf("%q", c.Cockpit.OnQuit), "want halt, leave, or empty (halt for live brokers, leave for paper)")
	}
	if c.Paper.Cash.Sign() <= 0 {
		return bad("paper.cash", c.Paper.Cash, "must be positive")
	}
	if c.Paper.TimeScale <= 0 || c.Paper.TimeScale > 10000 {
		return bad("paper.time_scale", c.Paper.TimeScale, "must be between 0 and 10000")
	}
	switch c.TUI.Theme {
	case "auto", "dark", "light", "high-contrast", "no-color":
	default:
		return bad("tui.theme", fmt.Sprintf("%q", c.TUI.Theme), "want auto, dark, light, high-contrast or no-color")
	}
	if err := c.validateBrokers(); err != nil {
		return err
	}
	if err := c.Policy.Validate(); err != nil {
		return err
	}
	if err := c.Agents.Validate(); err != nil {
		return err
	}
	if err := c.SSH.Validate(); err != nil {
		return err
	}
	if err := c.Fleet.Validate(); err != nil {
		return err
	}
	if err := c.Notify.Validate(); err != nil {
		return err
	}
	if err := c.Metrics.Validate(); err != nil {
		return err
	}
	return c.Tools.Validate()
}

// WriteTemplate writes the commented default config to <root>/config.toml unless one exists.
func WriteTemplate(root live.Root) (bool, error) {
	path := Path(root)
	if _, err := os.Stat(path); err == nil {
		return false, nil
	}
	if err := os.MkdirAll(root.Dir(), 0o700); err != nil {
		return false, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return false, err
	}
	defer f.Close()
	_, err = f.WriteString(Template)
	return err == nil, err
}
