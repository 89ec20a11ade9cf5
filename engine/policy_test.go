package engine

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"cockpit/config"
	"cockpit/live/money"
)

var toolNames = []string{"get_quote", "place_order", "cancel_order", "read_news", "shell"}

// randomLayer draws a layer where every field is independently unset or set.
func randomLayer(rng *rand.Rand, name string) Layer {
	l := Layer{Name: name, Allow: AllowAll, Workspace: AllowAll, Commands: AllowAll, Deny: map[string]bool{}, Forbidden: map[string]bool{}}
	subset := func(pool []string) Set {
		s := SetOf()
		for _, n := range pool {
			if rng.IntN(2) == 0 {
				s.Names[n] = true
			}
		}
		return s
	}
	if rng.IntN(2) == 0 {
		a := Autonomy(rng.IntN(3))
		l.Autonomy = &a
	}
	if rng.IntN(2) == 0 {
		l.Allow = subset(toolNames)
	}
	for _, n := range toolNames {
		if rng.IntN(5) == 0 {
			l.Deny[n] = true
		}
	}
	if rng.IntN(2) == 0 {
		l.Workspace = subset([]string{"/w/a", "/w/b", "/w/c"})
	}
	if rng.IntN(2) == 0 {
		l.Commands = subset([]string{"ls", "python3", "git"})
	}
	if rng.IntN(3) == 0 {
		l.Forbidden["~/.ssh"] = true
	}
	if rng.IntN(2) == 0 {
		b := rng.IntN(2) == 0
		l.RequireSandbox = &b
	}
	if rng.IntN(2) == 0 {
		b := rng.IntN(2) == 0
		l.Escalate = &b
	}
	lim := func() Limit {
		if rng.IntN(2) == 0 {
			return Limit{}
		}
		return Limit{Set: true, N: int64(rng.IntN(4))}
	}
	l.Rates = Rates{Scope: name, PerMinute: lim(), PerHour: lim(), MaxConcurrent: lim()}
	cost := func() MoneyLimit {
		if rng.IntN(2) == 0 {
			return MoneyLimit{}
		}
		return MoneyLimit{Set: true, V: money.FromInt(int64(rng.IntN(5))).Div(money.FromInt(4))}
	}
	l.PerRequestUSD, l.PerHourUSD, l.PerDayUSD = cost(), cost(), cost()
	return l
}

// render is an order-free text form of a policy (provenance excluded: it names a layer, and
// ties between equal layers are broken by name, so it is stable too, but it is not a limit).
func render(p Policy) string {
	set := func(s Set) string {
		if s.All {
			return "*"
		}
		return "[" + strings.Join(s.Sorted(), ",") + "]"
	}
	keys := func(m map[string]bool) string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return strings.Join(out, ",")
	}
	var rates []string
	for _, r := range p.Rates {
		rates = append(rates, fmt.Sprintf("%s:%v/%v/%v", r.Scope, r.PerMinute, r.PerHour, r.MaxConcurrent))
	}
	return fmt.Sprintf("a=%s allow=%s deny=%s ws=%s cmd=%s forb=%s sb=%v esc=%v rates=%s req=%v hour=%v day=%v prov=%s",
		p.Autonomy, set(p.Allow), keys(p.Deny), set(p.Workspace), set(p.Commands), keys(p.Forbidden), p.RequireSandbox,
		p.Escalate, strings.Join(rates, ";"), p.PerRequestUSD, p.PerHourUSD, p.PerDayUSD, p.Provenance["autonomy"])
}

// TestMeetOrderIndependent is prx.md §4.11 case 1: the meet over any permutation of 2–5
// random layers is the same, and no field of the result is wider than any layer's.
func TestMeetOrderIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 11))
	const cases = 5000
	for c := 0; c < cases; c++ {
		n := 2 + rng.IntN(4)
		layers := make([]Layer, n)
		for i := range layers {
			layers[i] = randomLayer(rng, fmt.Sprintf("layer%d", i))
		}
		want := Meet(layers...)
		for p := 0; p < 6; p++ {
			perm := append([]Layer(nil), layers...)
			rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			if got := Meet(perm...); render(got) != render(want) {
				t.Fatalf("case %d: order changed the meet\n got %s\nwant %s", c, render(got), render(want))
			}
		}
		for _, l := range layers {
			narrower(t, want, l)
		}
	}
}

// narrower fails when the meet is wider than layer l in any field l sets.
func narrower(t *testing.T, p Policy, l Layer) {
	t.Helper()
	if l.Autonomy != nil && p.Autonomy > *l.Autonomy {
		t.Fatalf("autonomy %s wider than %s's %s", p.Autonomy, l.Name, *l.Autonomy)
	}
	for _, tool := range toolNames {
		if ok, _ := p.Allows(tool); ok && (!l.Allow.Has(tool) || l.Deny[tool]) {
			t.Fatalf("%s allowed, but %s does not allow it", tool, l.Name)
		}
	}
	for _, s := range []struct {
		got, layer Set
	}{{p.Workspace, l.Workspace}, {p.Commands, l.Commands}} {
		if s.layer.All {
			continue
		}
		if s.got.All {
			t.Fatalf("unrestricted set wider than %s's %v", l.Name, s.layer.Sorted())
		}
		for n := range s.got.Names {
			if !s.layer.Names[n] {
				t.Fatalf("%q allowed, but not by %s", n, l.Name)
			}
		}
	}
	for f := range l.Forbidden {
		if !p.Forbidden[f] {
			t.Fatalf("forbidden path %s of %s dropped", f, l.Name)
		}
	}
	if l.RequireSandbox != nil && *l.RequireSandbox && !p.RequireSandbox {
		t.Fatalf("%s requires a sandbox; the meet does not", l.Name)
	}
	if l.Escalate != nil && *l.Escalate && !p.Escalate {
		t.Fatalf("%s escalates tainted turns; the meet does not", l.Name)
	}
	for _, m := range []struct {
		got, layer MoneyLimit
	}{{p.PerRequestUSD, l.PerRequestUSD}, {p.PerHourUSD, l.PerHourUSD}, {p.PerDayUSD, l.PerDayUSD}} {
		if m.layer.Set && (!m.got.Set || m.got.V.GreaterThan(m.layer.V)) {
			t.Fatalf("cost limit %v wider than %s's %v", m.got, l.Name, m.layer)
		}
	}
	if l.Rates.any() {
		found := false
		for _, r := range p.Rates {
			found = found || r == l.Rates
		}
		if !found {
			t.Fatalf("rate limits of %s dropped", l.Name)
		}
	}
}

func layer(t *testing.T, name, toml string) Layer {
	t.Helper()
	cfg, err := config.Parse([]byte("[policy.global]\n"+toml), config.Config{
		Cockpit: config.Default().Cockpit, Paper: config.Default().Paper, Agents: config.Default().Agents,
		Tools: config.Default().Tools, TUI: config.Default().TUI})
	if err != nil {
		t.Fatal(err)
	}
	l, err := LayerFromConfig(name, cfg.Policy.Global)
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
		auto   Autonomy
	}{
		{"empty allow list allows nothing", []string{`allow_tools = []`}, "get_quote", false, Supervised},
		{"unset allow list allows everything", []string{`autonomy = "full"`}, "get_quote", true, Full},
		{"deny beats allow", []string{`allow_tools = ["place_order"]`, `deny_tools = ["place_order"]`}, "place_order", false, Supervised},
		{"tool layer cannot widen an agent deny", []string{`autonomy = "full"`, `deny_tools = ["place_order"]`,
			`allow_tools = ["place_order"]
autonomy = "full"`}, "place_order", false, Full},
		{"tool layer cannot raise autonomy", []string{`autonomy = "read_only"`, `autonomy = "full"`}, "place_order", true, ReadOnly},
		{"intersection of allow lists", []string{`allow_tools = ["get_quote", "place_order"]`, `allow_tools = ["get_quote"]`}, "place_order", false, Supervised},
		{"no autonomy anywhere is supervised", []string{`deny_tools = []`}, "get_quote", true, Supervised},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ls []Layer
			for i, body := range tt.layers {
				ls = append(ls, layer(t, fmt.Sprintf("l%d", i), body))
			}
			p := Meet(ls...)
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
		layers []Layer
		want   MoneyLimit
	}{
		{"zero is zero", []Layer{zero, unset}, MoneyLimit{Set: true, V: money.Zero}},
		{"unset is the identity", []Layer{unset, five}, MoneyLimit{Set: true, V: money.FromInt(5)}},
		{"smallest wins", []Layer{five, zero}, MoneyLimit{Set: true, V: money.Zero}},
		{"nothing set", []Layer{unset}, MoneyLimit{}},
	}
	for _, tt := range tests {
		got := Meet(tt.layers...).PerDayUSD
		if got.Set != tt.want.Set || got.V.Cmp(tt.want.V) != 0 {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestLayersResolution checks the order global → profile → agent → groups → tool and that
// config names appear in provenance.
func TestLayersResolution(t *testing.T) {
	cfg, err := config.Parse([]byte(`
[policy.agents.llm]
autonomy = "supervised"
[policy.groups.trading]
rate_limits = { requests_per_minute = 10 }
[policy.tool_groups]
trading = ["place_order", "cancel_order"]
[policy.tools.place_order]
autonomy = "read_only"
`), config.Default())
	if err != nil {
		t.Fatal(err)
	}
	ls, err := Layers(cfg.Policy, "paper", "llm", "place_order")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range ls {
		names = append(names, l.Name)
	}
	if got, want := strings.Join(names, " "), "global profile:paper agent:llm group:trading tool:place_order"; got != want {
		t.Errorf("layers = %s, want %s", got, want)
	}
	p := Meet(ls...)
	if p.Autonomy != ReadOnly || p.Provenance["autonomy"] != "tool:place_order" {
		t.Errorf("autonomy %s from %s, want read_only from tool:place_order", p.Autonomy, p.Provenance["autonomy"])
	}
	if q := Meet(mustLayers(t, cfg.Policy, "paper", "strategy", "get_quote")...); q.Autonomy != Full || len(q.Rates) != 0 {
		t.Errorf("strategy/get_quote: autonomy %s, rates %v; want full and none", q.Autonomy, q.Rates)
	}
}

func mustLayers(t *testing.T, p config.Policy, profile, agent, tool string) []Layer {
	t.Helper()
	ls, err := Layers(p, profile, agent, tool)
	if err != nil {
		t.Fatal(err)
	}
	return ls
}
