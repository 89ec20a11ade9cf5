package config

import (
	"fmt"
	"strings"
	"testing"

	"cockpit/engine"
	"cockpit/live/money"
)

func layer(t *testing.T, name, toml string) engine.Layer {
	t.Helper()
	cfg, err := Parse([]byte("[policy.global]\n"+toml), Config{
		Cockpit: Default().Cockpit, Paper: Default().Paper, Agents: Default().Agents,
		Tools: Default().Tools, TUI: Default().TUI})
	if err != nil {
		t.Fatal(err)
	}
	l, err := EngineLayer(name, cfg.Policy.Global)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestMeetSemantics pins cases 2–4: an empty allow list allows nothing, an unset one
// everything, a deny beats an allow, 0 is zero, unset is the identity, and a tool layer cannot
// widen what an agent or group layer denies.
func TestMeetSemantics(t *testing.T) {
	tests := []struct {
		name   string
		layers []string // TOML bodies of successive layers
		tool   string
		allow  bool
		auto   engine.Autonomy
	}{
		{"empty allow list allows nothing", []string{`allow_tools = []`}, "get_quote", false, engine.Supervised},
		{"unset allow list allows everything", []string{`autonomy = "full"`}, "get_quote", true, engine.Full},
		{"deny beats allow", []string{`allow_tools = ["place_order"]`, `deny_tools = ["place_order"]`}, "place_order", false, engine.Supervised},
		{"tool layer cannot widen an agent deny", []string{`autonomy = "full"`, `deny_tools = ["place_order"]`,
			`allow_tools = ["place_order"]
autonomy = "full"`}, "place_order", false, engine.Full},
		{"tool layer cannot raise autonomy", []string{`autonomy = "read_only"`, `autonomy = "full"`}, "place_order", true, engine.ReadOnly},
		{"intersection of allow lists", []string{`allow_tools = ["get_quote", "place_order"]`, `allow_tools = ["get_quote"]`}, "place_order", false, engine.Supervised},
		{"no autonomy anywhere is supervised", []string{`deny_tools = []`}, "get_quote", true, engine.Supervised},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ls []engine.Layer
			for i, body := range tt.layers {
				ls = append(ls, layer(t, fmt.Sprintf("l%d", i), body))
			}
			p := engine.Meet(ls...)
			if got, _ := p.Allows(tt.tool); got != tt.allow {
				t.Errorf("Allows(%s) = %v, want %v", tt.tool, got, tt.allow)
			}
			if p.Autonomy != tt.auto {
				t.Errorf("autonomy = %s, want %s", p.Autonomy, tt.auto)
			}
		})
	}
}

// TestMeetLimits pins case 3 for limits: 0 is zero, unset is the identity, the smallest wins.
func TestMeetLimits(t *testing.T) {
	zero := layer(t, "a", "[policy.global.cost_limits]\nmax_per_day_usd = \"0\"")
	five := layer(t, "b", "[policy.global.cost_limits]\nmax_per_day_usd = \"5\"")
	unset := layer(t, "c", `autonomy = "full"`)
	tests := []struct {
		name   string
		layers []engine.Layer
		want   engine.MoneyLimit
	}{
		{"zero is zero", []engine.Layer{zero, unset}, engine.MoneyLimit{Set: true, V: money.Zero}},
		{"unset is the identity", []engine.Layer{unset, five}, engine.MoneyLimit{Set: true, V: money.FromInt(5)}},
		{"smallest wins", []engine.Layer{five, zero}, engine.MoneyLimit{Set: true, V: money.Zero}},
		{"nothing set", []engine.Layer{unset}, engine.MoneyLimit{}},
	}
	for _, tt := range tests {
		got := engine.Meet(tt.layers...).PerDayUSD
		if got.Set != tt.want.Set || got.V.Cmp(tt.want.V) != 0 {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestLayersResolution checks the order global → profile → agent → groups → tool and that
// config names appear in provenance.
func TestLayersResolution(t *testing.T) {
	cfg, err := Parse([]byte(`
[policy.agents.llm]
autonomy = "supervised"
[policy.groups.trading]
rate_limits = { requests_per_minute = 10 }
[policy.tool_groups]
trading = ["place_order", "cancel_order"]
[policy.tools.place_order]
autonomy = "read_only"
`), Default())
	if err != nil {
		t.Fatal(err)
	}
	ls := engine.Layers(mustEngine(t, cfg.Policy), "paper", "llm", "place_order")
	var names []string
	for _, l := range ls {
		names = append(names, l.Name)
	}
	if got, want := strings.Join(names, " "), "global profile:paper agent:llm group:trading tool:place_order"; got != want {
		t.Errorf("layers = %s, want %s", got, want)
	}
	p := engine.Meet(ls...)
	if p.Autonomy != engine.ReadOnly || p.Provenance["autonomy"] != "tool:place_order" {
		t.Errorf("autonomy %s from %s, want read_only from tool:place_order", p.Autonomy, p.Provenance["autonomy"])
	}
	if q := engine.Meet(mustLayers(t, cfg.Policy, "paper", "strategy", "get_quote")...); q.Autonomy != engine.Full || len(q.Rates) != 0 {
		t.Errorf("strategy/get_quote: autonomy %s, rates %v; want full and none", q.Autonomy, q.Rates)
	}
}

func mustLayers(t *testing.T, p Policy, profile, agent, tool string) []engine.Layer {
	t.Helper()
	return engine.Layers(mustEngine(t, p), profile, agent, tool)
}

func mustEngine(t *testing.T, p Policy) engine.Policies {
	t.Helper()
	pol, err := p.Engine()
	if err != nil {
		t.Fatal(err)
	}
	return pol
}

// TestEmptyLayerMatchesEmptyConfig pins that a group the tool groups name without a layer
// (engine.EmptyLayer) resolves as an empty [policy.groups] table would.
func TestEmptyLayerMatchesEmptyConfig(t *testing.T) {
	got, err := EngineLayer("group:g", Layer{})
	if err != nil {
		t.Fatal(err)
	}
	want := engine.EmptyLayer("group:g")
	if got.Name != want.Name || got.Rates != want.Rates || !got.Allow.All || !got.Workspace.All || !got.Commands.All ||
		len(got.Deny) != 0 || len(got.Forbidden) != 0 || got.Autonomy != nil || got.RequireSandbox != nil || got.Escalate != nil ||
		got.PerDayUSD.Set || got.PerHourUSD.Set || got.PerRequestUSD.Set ||
		!want.Allow.All || !want.Workspace.All || !want.Commands.All || want.Deny == nil || want.Forbidden == nil {
		t.Errorf("EngineLayer(empty) = %+v, want %+v", got, want)
	}
}
