package engine_test

import (
	"regexp"
	"testing"

	"cockpit/engine"
	"cockpit/internal/enginetest"
	"cockpit/live"
	"cockpit/live/jsonv"
)

// TestSchemaPortable: every property of every broker tool has one JSON type (the Inspector's
// --strict flags a type array as unportable), and a decimal parameter is a string with a
// decimal pattern, so a client never has to put an amount through a float.
func TestSchemaPortable(t *testing.T) {
	f := enginetest.New(t)
	decimals := map[string]bool{}
	for _, tool := range f.Engine.Tools.All() {
		props, _ := tool.Schema().Get("properties")
		obj, ok := props.(*jsonv.Object)
		if !ok {
			t.Fatalf("%s: properties = %T, want an object", tool.Name, props)
		}
		for _, name := range obj.Keys() {
			v, _ := obj.Get(name)
			prop := v.(*jsonv.Object)
			typ, _ := prop.Get("type")
			if _, ok := typ.(string); !ok {
				t.Errorf("%s.%s: type = %v (%T), want one type name", tool.Name, name, typ, typ)
			}
			if p, ok := prop.Get("pattern"); ok {
				if p != engine.DecimalPattern || typ != "string" {
					t.Errorf("%s.%s: type %v pattern %v, want string with %q", tool.Name, name, typ, p, engine.DecimalPattern)
				}
				decimals[tool.Name+"."+name] = true
			}
		}
	}
	for _, want := range []string{"place_order.quantity", "place_order.notional", "place_order.limit_price"} {
		if !decimals[want] {
			t.Errorf("%s: not a decimal string (decimal properties: %v)", want, decimals)
		}
	}
}

// TestDecimalPattern: what the schema's pattern admits, the engine parses to the same exact
// decimal; what it refuses is not a plain positive decimal.
func TestDecimalPattern(t *testing.T) {
	re := regexp.MustCompile(engine.DecimalPattern)
	tests := []struct {
		in   string
		want bool
	}{
		{"10", true}, {"0.5", true}, {"0.1", true}, {"123456789.123456789", true}, {"007", true},
		{"1e3", false}, {"-1", false}, {"+1", false}, {"NaN", false}, {"Infinity", false},
		{"", false}, {" 1", false}, {"1.", false}, {".5", false}, {"1,000", false}, {"1_000", false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := re.MatchString(tc.in); got != tc.want {
				t.Fatalf("pattern matches %q = %v, want %v", tc.in, got, tc.want)
			}
			if !tc.want {
				return
			}
			a, err := live.DecimalFromJSON(tc.in)
			if err != nil {
				t.Fatalf("DecimalFromJSON(%q): %v, want the decimal the schema admits", tc.in, err)
			}
			b, err := live.DecimalFromJSON(jsonv.Number(tc.in))
			if err != nil || a.Cmp(b) != 0 {
				t.Errorf("string %q = %s, number = %s (%v): want the same exact decimal", tc.in, a, b, err)
			}
		})
	}
}

// TestPositionsUseQuantity: get_positions names a position's size "quantity", the name
// place_order takes, not "qty".
func TestPositionsUseQuantity(t *testing.T) {
	f := enginetest.New(t, enginetest.WithPolicy("[policy.agents.strategy]\nautonomy = \"full\"\n"))
	if r := f.Call("place_order", enginetest.Buy("AAPL", "100")); !r.OK() {
		t.Fatalf("place_order: %+v", r)
	}
	r := f.Call("get_positions", nil)
	data, ok := r.Data.(*jsonv.Object)
	if !r.OK() || !ok {
		t.Fatalf("get_positions: %+v", r)
	}
	v, _ := data.Get("positions")
	ps, _ := v.([]any)
	if len(ps) != 1 {
		t.Fatalf("positions = %v, want the one bought", v)
	}
	p := ps[0].(*jsonv.Object)
	if _, ok := p.Get("quantity"); !ok {
		t.Errorf("position %v has no quantity", p.Keys())
	}
	if _, ok := p.Get("qty"); ok {
		t.Errorf("position %v still says qty", p.Keys())
	}
}
