package wasmplugin

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"cockpit/engine"
)

// Manifest is what a plugin asks for (NAME.plugin.toml beside the module). Its grants only
// narrow the engine's policy: they become one more layer met with the others.
type Manifest struct {
	Name           string   `toml:"name"`
	Version        string   `toml:"version"`
	Tools          []string `toml:"tools"`   // tools it may call with call_tool
	Symbols        []string `toml:"symbols"` // the only symbols it may read or trade
	CallsPerMinute int64    `toml:"calls_per_minute"`
	MemoryPages    uint32   `toml:"memory_pages"` // 64 KiB pages, the runtime's cap
	TickBudget     string   `toml:"tick_budget"`  // wall-clock budget per tick, e.g. "250ms"

	budget time.Duration
}

// ReadTools are the tools behind the host's market and book reads (quote, bars, positions,
// open_orders); they are granted with the ABI, still under the symbol grant and the rate.
var ReadTools = []string{"get_quote", "get_bars", "get_positions", "get_open_orders"}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// MaxBudget is the longest time budget a manifest may ask for per tick.
const MaxBudget = 10 * time.Second

// LoadManifest reads and checks a manifest; unknown keys are refused.
func LoadManifest(path string) (Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Manifest{}, fmt.Errorf("plugin manifest: %w", err)
	}
	return ParseManifest(b)
}

// ParseManifest parses and checks a manifest's TOML text.
func ParseManifest(b []byte) (Manifest, error) {
	var m Manifest
	md, err := toml.NewDecoder(bytes.NewReader(b)).Decode(&m)
	if err != nil {
		return Manifest{}, fmt.Errorf("plugin manifest: %w", err)
	}
	if un := md.Undecoded(); len(un) > 0 {
		return Manifest{}, fmt.Errorf("plugin manifest: unknown key %q", un[0].String())
	}
	return m, m.check()
}

func (m *Manifest) check() error {
	switch {
	case !nameRE.MatchString(m.Name):
		return fmt.Errorf("plugin manifest: name %q: want 1-32 of a-z, 0-9, _ and -, starting with a letter", m.Name)
	case m.Version == "":
		return fmt.Errorf("plugin manifest %s: version is missing", m.Name)
	case len(m.Symbols) == 0:
		return fmt.Errorf("plugin manifest %s: symbols is empty: a plugin must name what it trades", m.Name)
	case m.CallsPerMinute <= 0:
		return fmt.Errorf("plugin manifest %s: calls_per_minute = %d: must be positive", m.Name, m.CallsPerMinute)
	case m.MemoryPages == 0 || m.MemoryPages > 65536:
		return fmt.Errorf("plugin manifest %s: memory_pages = %d: want 1-65536 (64 KiB pages)", m.Name, m.MemoryPages)
	}
	d, err := time.ParseDuration(m.TickBudget)
	if err != nil || d <= 0 || d > MaxBudget {
		return fmt.Errorf("plugin manifest %s: tick_budget = %q: want a duration in (0, %s]", m.Name, m.TickBudget, MaxBudget)
	}
	m.budget = d
	for i, s := range m.Symbols {
		m.Symbols[i] = strings.ToUpper(strings.TrimSpace(s))
	}
	return nil
}

// Budget is the time budget of one tick.
func (m Manifest) Budget() time.Duration { return m.budget }

// Agent is the plugin's agent identity: plugin:NAME.
func (m Manifest) Agent() string { return "plugin:" + m.Name }

// Granted reports whether the manifest grants a tool (its tools, plus the ABI's reads).
func (m Manifest) Granted(tool string) bool {
	for _, t := range m.Tools {
		if t == tool {
			return true
		}
	}
	for _, t := range ReadTools {
		if t == tool {
			return true
		}
	}
	return false
}

// GrantSymbol reports whether the manifest grants a symbol.
func (m Manifest) GrantSymbol(sym string) bool {
	for _, s := range m.Symbols {
		if s == sym {
			return true
		}
	}
	return false
}

// Layer is the manifest's grants as a policy layer named grant:NAME: the tool allow list,
// the symbols and the calls per minute. It sets no autonomy, so it can only narrow.
func (m Manifest) Layer() engine.Layer {
	l := engine.EmptyLayer("grant:" + m.Name)
	l.Allow = engine.SetOf(append(append([]string{}, m.Tools...), ReadTools...)...)
	syms := engine.SetOf(m.Symbols...)
	l.Symbols = &syms
	l.Rates.PerMinute = engine.Limit{Set: true, N: m.CallsPerMinute}
	return l
}
