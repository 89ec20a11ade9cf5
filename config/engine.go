package config

import (
	"fmt"
	"maps"
	"slices"

	"cockpit/engine"
	"cockpit/live/money"
)

// Engine maps [policy] onto the engine's layered policy, each layer resolved and named
// (global, profile:NAME, agent:NAME, group:NAME, tool:NAME).
func (p Policy) Engine() (engine.Policies, error) {
	out := engine.Policies{Profile: p.Profile, ToolGroups: p.ToolGroups}
	var err error
	if out.Global, err = EngineLayer("global", p.Global); err != nil {
		return out, err
	}
	for _, group := range []struct {
		prefix string
		from   map[string]Layer
		to     *map[string]engine.Layer
	}{{"profile:", p.Profiles, &out.Profiles}, {"agent:", p.Agents, &out.Agents}, {"group:", p.Groups, &out.Groups},
		{"tool:", p.Tools, &out.Tools}} {
		*group.to = make(map[string]engine.Layer, len(group.from))
		for _, name := range slices.Sorted(maps.Keys(group.from)) {
			if (*group.to)[name], err = EngineLayer(group.prefix+name, group.from[name]); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// EnginePrices maps the LLM prices onto the engine's cost budget prices.
func (a LLMAgent) EnginePrices() map[string]engine.Price {
	out := make(map[string]engine.Price, len(a.Prices))
	for model, p := range a.Prices {
		out[model] = engine.Price{InputPerMTok: p.InputPerMTok, OutputPerMTok: p.OutputPerMTok}
	}
	return out
}

// EngineLayer resolves one configured layer into the engine's layer, named name.
func EngineLayer(name string, c Layer) (engine.Layer, error) {
	l := engine.Layer{Name: name, Allow: engine.AllowAll, Workspace: engine.AllowAll, Commands: engine.AllowAll, Deny: map[string]bool{}, Forbidden: map[string]bool{}}
	if c.Autonomy != nil {
		a, err := engine.ParseAutonomy(*c.Autonomy)
		if err != nil {
			return l, fmt.Errorf("%s: %w", name, err)
		}
		l.Autonomy = &a
	}
	if c.AllowTools != nil {
		l.Allow = engine.SetOf(*c.AllowTools...)
	}
	for _, d := range c.DenyTools {
		l.Deny[d] = true
	}
	if c.WorkspaceRestrictions != nil {
		l.Workspace = engine.SetOf(*c.WorkspaceRestrictions...)
	}
	if c.AllowedCommands != nil {
		l.Commands = engine.SetOf(*c.AllowedCommands...)
	}
	for _, p := range c.ForbiddenPaths {
		l.Forbidden[p] = true
	}
	l.RequireSandbox, l.Escalate = c.RequireSandbox, c.EscalateOnUntrustedInput
	lim := func(p *int64) engine.Limit {
		if p == nil {
			return engine.Limit{}
		}
		return engine.Limit{Set: true, N: *p}
	}
	l.Rates = engine.Rates{Scope: name, PerMinute: lim(c.RateLimits.RequestsPerMinute), PerHour: lim(c.RateLimits.RequestsPerHour),
		MaxConcurrent: lim(c.RateLimits.MaxConcurrent)}
	cost := func(p *money.Amount) engine.MoneyLimit {
		if p == nil {
			return engine.MoneyLimit{}
		}
		return engine.MoneyLimit{Set: true, V: *p}
	}
	l.PerRequestUSD, l.PerHourUSD, l.PerDayUSD = cost(c.CostLimits.MaxPerRequestUSD), cost(c.CostLimits.MaxPerHourUSD), cost(c.CostLimits.MaxPerDayUSD)
	return l, nil
}
