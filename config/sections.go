package config

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"time"

	"cockpit/live/money"
)

// Layer is one layer of the agent policy (seed 003). Every field is optional: an unset field
// says nothing, so the layers above decide. A layer can only narrow (the engine merges layers
// by their meet). An allow list that is set but empty allows nothing; a limit of 0 is zero.
type Layer struct {
	Autonomy                 *string    `toml:"autonomy"` // read_only | supervised | full
	AllowTools               *[]string  `toml:"allow_tools"`
	DenyTools                []string   `toml:"deny_tools"`
	WorkspaceRestrictions    *[]string  `toml:"workspace_restrictions"` // roots the file and shell tools may touch
	AllowedCommands          *[]string  `toml:"allowed_commands"`       // argv[0] values the shell tool may run
	ForbiddenPaths           []string   `toml:"forbidden_paths"`
	RequireSandbox           *bool      `toml:"require_sandbox"`
	EscalateOnUntrustedInput *bool      `toml:"escalate_on_untrusted_input"`
	RateLimits               RateLimits `toml:"rate_limits"`
	CostLimits               CostLimits `toml:"cost_limits"`
}

// RateLimits bound agent tool calls and LLM requests.
type RateLimits struct {
	RequestsPerMinute *int64 `toml:"requests_per_minute"`
	RequestsPerHour   *int64 `toml:"requests_per_hour"`
	MaxConcurrent     *int64 `toml:"max_concurrent"`
}

// CostLimits bound LLM spend, checked before each call.
type CostLimits struct {
	MaxPerRequestUSD *money.Amount `toml:"max_per_request_usd"`
	MaxPerHourUSD    *money.Amount `toml:"max_per_hour_usd"`
	MaxPerDayUSD     *money.Amount `toml:"max_per_day_usd"`
}

// Policy holds the layers: global → profile → agent → group → tool.
type Policy struct {
	Global     Layer               `toml:"global"`
	Profile    string              `toml:"profile"` // the profile layer in force (default: paper or live by broker)
	Profiles   map[string]Layer    `toml:"profiles"`
	Agents     map[string]Layer    `toml:"agents"`
	Groups     map[string]Layer    `toml:"groups"`
	ToolGroups map[string][]string `toml:"tool_groups"` // group name → the tools it covers
	Tools      map[string]Layer    `toml:"tools"`
}

func strp(s string) *string { return &s }
func boolp(b bool) *bool    { return &b }

// DefaultPolicy is Full autonomy on paper, Supervised on live brokers, a sandbox required
// for any shell, escalation of tainted turns on live, and the shell and file tools off.
func DefaultPolicy() Policy {
	return Policy{
		Global: Layer{Autonomy: strp("full"), RequireSandbox: boolp(true), AllowedCommands: &[]string{},
			ForbiddenPaths: []string{"~/.ssh", "~/.aws", "~/.config", "/etc/shadow"}},
		Profiles: map[string]Layer{
			"paper": {EscalateOnUntrustedInput: boolp(false)},
			"live":  {Autonomy: strp("supervised"), EscalateOnUntrustedInput: boolp(true)},
		},
	}
}

// Validate checks the values of every layer.
func (p Policy) Validate() error {
	check := func(name string, l Layer) error {
		if l.Autonomy != nil {
			switch *l.Autonomy {
			case "read_only", "supervised", "full":
			default:
				return fmt.Errorf("config: %s.autonomy = %q: want read_only, supervised or full", name, *l.Autonomy)
			}
		}
		for key, v := range map[string]*int64{"requests_per_minute": l.RateLimits.RequestsPerMinute,
			"requests_per_hour": l.RateLimits.RequestsPerHour, "max_concurrent": l.RateLimits.MaxConcurrent} {
			if v != nil && *v < 0 {
				return fmt.Errorf("config: %s.rate_limits.%s = %d: cannot be negative (0 means none allowed)", name, key, *v)
			}
		}
		for key, v := range map[string]*money.Amount{"max_per_request_usd": l.CostLimits.MaxPerRequestUSD,
			"max_per_hour_usd": l.CostLimits.MaxPerHourUSD, "max_per_day_usd": l.CostLimits.MaxPerDayUSD} {
			if v != nil && v.Sign() < 0 {
				return fmt.Errorf("config: %s.cost_limits.%s = %s: cannot be negative (0 means no spending)", name, key, v)
			}
		}
		return nil
	}
	if err := check("policy.global", p.Global); err != nil {
		return err
	}
	for _, group := range []struct {
		prefix string
		layers map[string]Layer
	}{{"policy.profiles", p.Profiles}, {"policy.agents", p.Agents}, {"policy.groups", p.Groups}, {"policy.tools", p.Tools}} {
		for _, name := range slices.Sorted(maps.Keys(group.layers)) {
			if err := check(group.prefix+"."+name, group.layers[name]); err != nil {
				return err
			}
		}
	}
	for g := range p.ToolGroups {
		if _, ok := p.Groups[g]; !ok {
			return fmt.Errorf("config: policy.tool_groups.%s names a group with no [policy.groups.%s] layer", g, g)
		}
	}
	if p.Profile != "" {
		if _, ok := p.Profiles[p.Profile]; !ok {
			return fmt.Errorf("config: policy.profile = %q: no [policy.profiles.%s] layer", p.Profile, p.Profile)
		}
	}
	return nil
}

// Duration is a time.Duration written as "2s", "1m30s".
type Duration struct{ time.Duration }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Agents configures the built-in agents.
type Agents struct {
	Strategy StrategyAgent `toml:"strategy"`
	Replay   ReplayAgent   `toml:"replay"`
	LLM      LLMAgent      `toml:"llm"`
	Plugin   PluginAgent   `toml:"plugin"` // a WASM strategy plugin (config/plugin.go)
}

// StrategyAgent is the built-in rule-based trader.
type StrategyAgent struct {
	Seed     int64        `toml:"seed"`
	Symbols  []string     `toml:"symbols"`
	Interval Duration     `toml:"interval"` // time between turns
	Notional money.Amount `toml:"notional"` // typical order size in USD
}

// ReplayAgent plays a JSONL script of tool calls.
type ReplayAgent struct {
	Script string  `toml:"script"`
	Speed  float64 `toml:"speed"` // 1 = the script's own timing; 0 = as fast as possible
}

// LLMAgent is an OpenAI-compatible chat-completions agent.
type LLMAgent struct {
	BaseURL         string           `toml:"base_url"`
	Model           string           `toml:"model"`
	APIKeyEnv       string           `toml:"api_key_env"` // the environment variable holding the key
	Timeout         Duration         `toml:"timeout"`
	MaxOutputTokens int64            `toml:"max_output_tokens"`
	Interval        Duration         `toml:"interval"`
	Prices          map[string]Price `toml:"prices"` // model → price per million tokens
}

// Price is what one model costs per million tokens.
type Price struct {
	InputPerMTok  money.Amount `toml:"input_per_mtok"`
	OutputPerMTok money.Amount `toml:"output_per_mtok"`
}

// DefaultAgents configures the built-in agents.
func DefaultAgents() Agents {
	return Agents{
		Strategy: StrategyAgent{Seed: 7, Symbols: []string{"AAPL", "MSFT", "NVDA", "SPY", "TSLA", "GME"},
			Interval: Duration{2 * time.Second}, Notional: money.FromInt(2500)},
		Replay: ReplayAgent{Speed: 1},
		Plugin: DefaultPluginAgent(),
		LLM: LLMAgent{BaseURL: "https://api.openai.com/v1/", Model: "gpt-4o-mini", APIKeyEnv: "OPENAI_API_KEY",
			Timeout: Duration{60 * time.Second}, MaxOutputTokens: 1024, Interval: Duration{30 * time.Second},
			Prices: map[string]Price{"gpt-4o-mini": {InputPerMTok: money.MustParse("0.15"), OutputPerMTok: money.MustParse("0.60")}}},
	}
}

// Validate checks the agents' settings.
func (a Agents) Validate() error {
	if err := a.Plugin.Validate(); err != nil {
		return err
	}
	if a.Strategy.Interval.Duration <= 0 {
		return fmt.Errorf("config: agents.strategy.interval = %s: must be positive", a.Strategy.Interval)
	}
	if a.Strategy.Notional.Sign() <= 0 {
		return fmt.Errorf("config: agents.strategy.notional = %s: must be positive", a.Strategy.Notional)
	}
	if a.Replay.Speed < 0 {
		return fmt.Errorf("config: agents.replay.speed = %v: cannot be negative", a.Replay.Speed)
	}
	if u, err := url.Parse(a.LLM.BaseURL); a.LLM.BaseURL != "" && (err != nil || u.Scheme == "" || u.Host == "") {
		return fmt.Errorf("config: agents.llm.base_url = %q: want an absolute http(s) URL", a.LLM.BaseURL)
	}
	if a.LLM.MaxOutputTokens <= 0 {
		return fmt.Errorf("config: agents.llm.max_output_tokens = %d: must be positive", a.LLM.MaxOutputTokens)
	}
	for model, p := range a.LLM.Prices {
		if p.InputPerMTok.Sign() < 0 || p.OutputPerMTok.Sign() < 0 {
			return fmt.Errorf("config: agents.llm.prices.%s: prices cannot be negative", model)
		}
	}
	return nil
}

// Tools configures the agent's non-broker tools.
type Tools struct {
	News  NewsTool  `toml:"news"`
	Web   WebTool   `toml:"web"`
	Files FilesTool `toml:"files"`
	Shell ShellTool `toml:"shell"`
}

// NewsTool reads a news feed.
type NewsTool struct {
	Source string `toml:"source"` // an RSS/Atom URL, a directory of files, or "sample"; "" = off
}

// WebTool reads web pages.
type WebTool struct {
	Enabled  bool     `toml:"enabled"`
	Policy   string   `toml:"policy"` // strict (resolved addresses checked) | lexical
	MaxBytes int64    `toml:"max_bytes"`
	Timeout  Duration `toml:"timeout"`
}

// FilesTool reads files inside the allowed roots.
type FilesTool struct {
	Enabled    bool     `toml:"enabled"`
	ReadRoots  []string `toml:"read_roots"`
	WriteRoots []string `toml:"write_roots"`
	RunRoots   []string `toml:"run_roots"`
}

// ShellTool runs allowed commands, sandboxed.
type ShellTool struct {
	Enabled   bool     `toml:"enabled"`
	Backend   string   `toml:"backend"` // auto | docker | bwrap | firejail | landlock | none
	Timeout   Duration `toml:"timeout"`
	MaxOutput int64    `toml:"max_output"`
}

// DefaultTools turns the sample news on and everything that touches the machine off.
func DefaultTools() Tools {
	return Tools{
		News:  NewsTool{Source: "sample"},
		Web:   WebTool{Policy: "strict", MaxBytes: 1 << 20, Timeout: Duration{15 * time.Second}},
		Shell: ShellTool{Backend: "auto", Timeout: Duration{120 * time.Second}, MaxOutput: 50_000},
	}
}

// Validate checks the tools' settings.
func (t Tools) Validate() error {
	switch t.Web.Policy {
	case "strict", "lexical":
	default:
		return fmt.Errorf("config: tools.web.policy = %q: want strict or lexical", t.Web.Policy)
	}
	if t.Web.MaxBytes <= 0 || t.Web.Timeout.Duration <= 0 {
		return fmt.Errorf("config: tools.web: max_bytes and timeout must be positive")
	}
	switch t.Shell.Backend {
	case "auto", "docker", "bwrap", "firejail", "landlock", "none":
	default:
		return fmt.Errorf("config: tools.shell.backend = %q: want auto, docker, bwrap, firejail, landlock or none", t.Shell.Backend)
	}
	if t.Shell.Timeout.Duration <= 0 || t.Shell.MaxOutput <= 0 {
		return fmt.Errorf("config: tools.shell: timeout and max_output must be positive")
	}
	return nil
}
