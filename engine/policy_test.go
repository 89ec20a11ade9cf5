package engine

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

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
