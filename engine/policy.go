package engine

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"cockpit/live"
	"cockpit/live/money"
)

// ReasonSymbolNotGranted denies a call naming a symbol outside a layer's symbol grant.
const ReasonSymbolNotGranted live.Reason = "symbol_not_granted"

// Autonomy is how much the agent may do on its own; lower is stricter.
type Autonomy int8

// Autonomy levels.
const (
	ReadOnly   Autonomy = iota // write tools are not offered and refused if called
	Supervised                 // every order waits for a human, even inside the mandate
	Full                       // inside the mandate orders go; quantitative breaches wait for a human
)

func (a Autonomy) String() string { return [...]string{"read_only", "supervised", "full"}[a] }

// ParseAutonomy reads read_only, supervised or full.
func ParseAutonomy(s string) (Autonomy, error) {
	switch s {
	case "read_only":
		return ReadOnly, nil
	case "supervised":
		return Supervised, nil
	case "full":
		return Full, nil
	}
	return ReadOnly, fmt.Errorf("unknown autonomy %q", s)
}

// Set is an allow set. All means no restriction; All=false with no names allows nothing.
type Set struct {
	All   bool
	Names map[string]bool
}

// AllowAll is the identity of the meet.
var AllowAll = Set{All: true}

// SetOf builds a restricting set (possibly empty: nothing allowed).
func SetOf(names ...string) Set {
	s := Set{Names: map[string]bool{}}
	for _, n := range names {
		s.Names[n] = true
	}
	return s
}

// Has reports whether name is allowed.
func (s Set) Has(name string) bool { return s.All || s.Names[name] }

// Sorted lists the names of a restricting set.
func (s Set) Sorted() []string {
	return slices.Sorted(maps.Keys(s.Names))
}

func meetSet(a, b Set) Set {
	switch {
	case a.All:
		return b
	case b.All:
		return a
	}
	out := Set{Names: map[string]bool{}}
	for n := range a.Names {
		if b.Names[n] {
			out.Names[n] = true
		}
	}
	return out
}

// Limit is an optional bound; unset means "this layer says nothing"; 0 means zero.
type Limit struct {
	Set bool
	N   int64
}

// MoneyLimit is an optional money bound.
type MoneyLimit struct {
	Set bool
	V   money.Amount
}

func meetMoney(a, b MoneyLimit) MoneyLimit {
	switch {
	case !a.Set:
		return b
	case !b.Set || a.V.Cmp(b.V) <= 0:
		return a
	}
	return b
}

// Rates are the rate limits one layer sets, enforced against that layer's own scope and for
// each agent on its own (global counts every call of the agent, a tool layer only its calls of
// that tool; an MCP client session is an agent).
type Rates struct {
	Scope         string
	PerMinute     Limit
	PerHour       Limit
	MaxConcurrent Limit
}

func (r Rates) any() bool { return r.PerMinute.Set || r.PerHour.Set || r.MaxConcurrent.Set }

// Layer is one resolved policy layer.
type Layer struct {
	Name           string // global, profile:paper, agent:strategy, group:trading, tool:place_order
	Autonomy       *Autonomy
	Allow          Set
	Deny           map[string]bool
	Workspace      Set
	Commands       Set
	Forbidden      map[string]bool
	RequireSandbox *bool
	Escalate       *bool
	Rates          Rates
	PerRequestUSD  MoneyLimit
	PerHourUSD     MoneyLimit
	PerDayUSD      MoneyLimit
	// Symbols, when set, is the only symbols a call may name (a plugin's grant); nil says nothing.
	Symbols *Set
}

// EmptyLayer is a layer that says nothing: it allows everything and sets no limit.
func EmptyLayer(name string) Layer {
	return Layer{Name: name, Allow: AllowAll, Workspace: AllowAll, Commands: AllowAll, Deny: map[string]bool{},
		Forbidden: map[string]bool{}, Rates: Rates{Scope: name}}
}

// Policies is the engine's layered agent policy: global → profile → agent → group → tool.
// Each layer is resolved and named (config.toml's [policy] maps onto it).
type Policies struct {
	Global     Layer
	Profile    string // the profile layer in force ("" picks paper or live by broker)
	Profiles   map[string]Layer
	Agents     map[string]Layer
	Groups     map[string]Layer
	ToolGroups map[string][]string // group name → the tools it covers
	Tools      map[string]Layer
	// Grants are agent-owned layers (a plugin's manifest), met after the agent's own layer.
	Grants map[string]Layer
}

// Policy is the effective policy for one (agent, tool): the meet of its layers.
type Policy struct {
	Autonomy       Autonomy
	Allow          Set
	Deny           map[string]bool
	Workspace      Set
	Commands       Set
	Forbidden      map[string]bool
	RequireSandbox bool
	Escalate       bool
	Rates          []Rates // every layer's own limits, sorted by scope
	PerRequestUSD  MoneyLimit
	PerHourUSD     MoneyLimit
	PerDayUSD      MoneyLimit
	// Symbols is the meet of the layers' symbol grants; nil means no layer restricts symbols.
	Symbols *Set
	// Provenance names the layer whose value binds, per field (autonomy, allow, deny).
	Provenance map[string]string
	allowBy    []namedSet // the restricting allow sets, with their layers (to name a refusal)
	symbolsBy  []namedSet // the symbol grants, with their layers
}

type namedSet struct {
	layer string
	set   Set
}

// Meet merges layers so each can only narrow: the lowest autonomy, the intersection of allow
// sets, the union of deny lists, the smallest set limit, sandbox and escalation required if
// any layer requires them. The result does not depend on the order of the layers. Fields no
// layer sets take the strictest safe default: Supervised, sandbox required, no escalation.
func Meet(layers ...Layer) Policy {
	p := Policy{Autonomy: Supervised, Allow: AllowAll, Deny: map[string]bool{}, Workspace: AllowAll, Commands: AllowAll,
		Forbidden: map[string]bool{}, RequireSandbox: true, Provenance: map[string]string{}}
	autonomySet, sandboxSet := false, false
	for _, l := range layers {
		if l.Autonomy != nil && (!autonomySet || *l.Autonomy < p.Autonomy ||
			(*l.Autonomy == p.Autonomy && l.Name < p.Provenance["autonomy"])) {
			p.Autonomy, autonomySet = *l.Autonomy, true
			p.Provenance["autonomy"] = l.Name
		}
		if !l.Allow.All {
			p.Allow = meetSet(p.Allow, l.Allow)
			p.allowBy = append(p.allowBy, namedSet{l.Name, l.Allow})
		}
		if l.Symbols != nil {
			s := *l.Symbols
			if p.Symbols != nil {
				s = meetSet(*p.Symbols, s)
			}
			p.Symbols = &s
			p.symbolsBy = append(p.symbolsBy, namedSet{l.Name, *l.Symbols})
		}
		p.Workspace = meetSet(p.Workspace, l.Workspace)
		p.Commands = meetSet(p.Commands, l.Commands)
		for d := range l.Deny {
			p.Deny[d] = true
		}
		for f := range l.Forbidden {
			p.Forbidden[f] = true
		}
		if l.RequireSandbox != nil {
			if !sandboxSet {
				p.RequireSandbox, sandboxSet = *l.RequireSandbox, true
			} else {
				p.RequireSandbox = p.RequireSandbox || *l.RequireSandbox
			}
		}
		if l.Escalate != nil && *l.Escalate {
			p.Escalate = true
		}
		if l.Rates.any() {
			p.Rates = append(p.Rates, l.Rates)
		}
		p.PerRequestUSD = meetMoney(p.PerRequestUSD, l.PerRequestUSD)
		p.PerHourUSD = meetMoney(p.PerHourUSD, l.PerHourUSD)
		p.PerDayUSD = meetMoney(p.PerDayUSD, l.PerDayUSD)
	}
	sort.Slice(p.Rates, func(i, j int) bool { return p.Rates[i].Scope < p.Rates[j].Scope })
	return p
}

// Allows reports whether the policy lets the agent call tool at all.
func (p Policy) Allows(tool string) (bool, string) {
	switch {
	case p.Deny[tool]:
		return false, "the tool is on a deny list"
	case !p.Allow.Has(tool):
		for _, n := range p.allowBy {
			if !n.set.Has(tool) {
				return false, "the tool is not in the allow list of " + n.layer
			}
		}
		return false, "the tool is not in the allow list"
	}
	return true, ""
}

// AllowsSymbol reports whether the policy's symbol grants let a call name sym, and which
// layer refuses it otherwise.
func (p Policy) AllowsSymbol(sym string) (bool, string) {
	if p.Symbols == nil || p.Symbols.Has(sym) {
		return true, ""
	}
	for _, n := range p.symbolsBy {
		if !n.set.Has(sym) {
			return false, fmt.Sprintf("%s is not among the symbols granted by %s", sym, n.layer)
		}
	}
	return false, sym + " is not among the granted symbols"
}

// Layers resolves the layers that apply to one agent calling one tool, in order:
// global → profile → agent → groups containing the tool → tool.
func Layers(cfg Policies, profile, agent, tool string) []Layer {
	out := []Layer{cfg.Global}
	if cfg.Profile != "" {
		profile = cfg.Profile
	}
	if l, ok := cfg.Profiles[profile]; ok {
		out = append(out, l)
	}
	if l, ok := cfg.Agents[agent]; ok {
		out = append(out, l)
	}
	if l, ok := cfg.Grants[agent]; ok {
		out = append(out, l)
	}
	groups := make([]string, 0)
	for g, tools := range cfg.ToolGroups {
		for _, t := range tools {
			if t == tool {
				groups = append(groups, g)
			}
		}
	}
	sort.Strings(groups)
	for _, g := range groups {
		l, ok := cfg.Groups[g]
		if !ok {
			l = EmptyLayer("group:" + g)
		}
		out = append(out, l)
	}
	if l, ok := cfg.Tools[tool]; ok {
		out = append(out, l)
	}
	return out
}
