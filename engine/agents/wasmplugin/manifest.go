package wasmplugin

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"cockpit/engine"
	"cockpit/live/jsonv"
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

// MaxBudget is the longest time budget a manifest may ask for per tick, whatever the
// operator's ceiling; MaxPages is the most memory (64 KiB pages) a 32-bit module can have.
const (
	MaxBudget = 10 * time.Second
	MaxPages  = 65536
)

// Ceilings are the operator's limits on what a manifest may ask for (config's
// agents.plugin.max_memory_pages and max_tick_budget). A manifest asking more is refused at
// load.
type Ceilings struct {
	MemoryPages uint32
	TickBudget  time.Duration
}

// DefaultCeilings are the ceilings when config sets none: 1,024 pages (64 MiB) and 1 s a tick.
var DefaultCeilings = Ceilings{MemoryPages: 1024, TickBudget: time.Second}

// orDefault fills a zero ceiling with its default: an unset ceiling is never "no limit".
func (c Ceilings) orDefault() Ceilings {
	if c.MemoryPages == 0 {
		c.MemoryPages = DefaultCeilings.MemoryPages
	}
	if c.TickBudget <= 0 {
		c.TickBudget = DefaultCeilings.TickBudget
	}
	return c
}

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
	case m.MemoryPages == 0 || m.MemoryPages > MaxPages:
		return fmt.Errorf("plugin manifest %s: memory_pages = %d: want 1-%d (64 KiB pages)", m.Name, m.MemoryPages, MaxPages)
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

// Within reports what the manifest asks beyond the operator's ceilings (nil when nothing).
func (m Manifest) Within(c Ceilings) error {
	var over []string
	if m.MemoryPages > c.MemoryPages {
		over = append(over, fmt.Sprintf("memory_pages = %d is over the ceiling of %d (agents.plugin.max_memory_pages)", m.MemoryPages, c.MemoryPages))
	}
	if m.budget > c.TickBudget {
		over = append(over, fmt.Sprintf("tick_budget = %q is over the ceiling of %s (agents.plugin.max_tick_budget)", m.TickBudget, c.TickBudget))
	}
	if len(over) == 0 {
		return nil
	}
	return errors.New(strings.Join(over, "; "))
}

// Budget is the time budget of one tick.
func (m Manifest) Budget() time.Duration { return m.budget }

// Agent is the plugin's agent identity: plugin:NAME.
func (m Manifest) Agent() string { return "plugin:" + m.Name }

// Allowed is every tool the manifest grants: its tools, then the ABI's reads.
func (m Manifest) Allowed() []string {
	return append(append([]string{}, m.Tools...), ReadTools...)
}

// Granted reports whether the manifest grants a tool (its tools, plus the ABI's reads).
func (m Manifest) Granted(tool string) bool {
	return slices.Contains(m.Tools, tool) || slices.Contains(ReadTools, tool)
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

func (m Manifest) layerName() string { return "grant:" + m.Name }

// Grants are the grants in force as JSON, for the audit: the layer's name, every tool it
// allows (the ABI's reads included), the symbols, the rate, the memory cap and the budget.
func (m Manifest) Grants() *jsonv.Object {
	return jsonv.ObjectOf("layer", m.layerName(), "tools", anys(m.Allowed()), "symbols", anys(m.Symbols),
		"calls_per_minute", m.CallsPerMinute, "memory_pages", int64(m.MemoryPages), "tick_budget", m.budget.String())
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// Layer is the manifest's grants as a policy layer named grant:NAME: the tool allow list,
// the symbols and the calls per minute. It sets no autonomy, so it can only narrow.
func (m Manifest) Layer() engine.Layer {
	l := engine.EmptyLayer(m.layerName())
	l.Allow = engine.SetOf(m.Allowed()...)
	syms := engine.SetOf(m.Symbols...)
	l.Symbols = &syms
	l.Rates.PerMinute = engine.Limit{Set: true, N: m.CallsPerMinute}
	return l
}
