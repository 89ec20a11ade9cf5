package engine

import (
	"strings"
	"testing"
)

// A grant layer (a plugin's manifest) only narrows: its tools, symbols and rate are met with
// the other layers, and a refusal names the layer that refuses.
func TestGrantLayerNarrowsAndIsNamed(t *testing.T) {
	full := Full
	grant := EmptyLayer("grant:meanrev")
	grant.Allow = SetOf("get_quote", "place_order")
	syms := SetOf("AAPL", "MSFT")
	grant.Symbols = &syms
	grant.Rates.PerMinute = Limit{Set: true, N: 60}
	global := EmptyLayer("global")
	global.Autonomy = &full
	cfg := Policies{Global: global, Grants: map[string]Layer{"plugin:meanrev": grant}}

	p := Meet(Layers(cfg, "paper", "plugin:meanrev", "cancel_order")...)
	for _, tc := range []struct {
		tool string
		ok   bool
		why  string
	}{
		{"place_order", true, ""},
		{"cancel_order", false, "the tool is not in the allow list of grant:meanrev"},
	} {
		ok, why := p.Allows(tc.tool)
		if ok != tc.ok || why != tc.why {
			t.Errorf("Allows(%s) = %v %q, want %v %q", tc.tool, ok, why, tc.ok, tc.why)
		}
	}
	if ok, why := p.AllowsSymbol("TSLA"); ok || !strings.Contains(why, "TSLA is not among the symbols granted by grant:meanrev") {
		t.Errorf("AllowsSymbol(TSLA) = %v %q, want refused naming grant:meanrev", ok, why)
	}
	if ok, _ := p.AllowsSymbol("AAPL"); !ok {
		t.Error("AllowsSymbol(AAPL) refused a granted symbol")
	}
	if len(p.Rates) != 1 || p.Rates[0].Scope != "grant:meanrev" || p.Rates[0].PerMinute.N != 60 {
		t.Errorf("rates = %+v, want the grant's 60/min", p.Rates)
	}
	if p.Autonomy != Full {
		t.Errorf("autonomy = %s: a grant that sets none must not change it", p.Autonomy)
	}
	// Another agent is not narrowed by the plugin's grant, and no layer restricts symbols.
	q := Meet(Layers(cfg, "paper", "strategy", "cancel_order")...)
	if ok, _ := q.Allows("cancel_order"); !ok || q.Symbols != nil {
		t.Errorf("strategy: allows cancel_order = %v, symbols = %v; want allowed and unrestricted", ok, q.Symbols)
	}
	// A narrower agent layer still binds: the grant cannot widen it.
	agent := EmptyLayer("agent:plugin:meanrev")
	agent.Allow = SetOf("get_quote")
	cfg.Agents = map[string]Layer{"plugin:meanrev": agent}
	r := Meet(Layers(cfg, "paper", "plugin:meanrev", "place_order")...)
	if ok, why := r.Allows("place_order"); ok || why != "the tool is not in the allow list of agent:plugin:meanrev" {
		t.Errorf("Allows(place_order) = %v %q, want refused by agent:plugin:meanrev", ok, why)
	}
}
