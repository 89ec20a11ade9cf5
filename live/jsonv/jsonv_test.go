package jsonv

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestParseKeepsOrderAndNumbers(t *testing.T) {
	v, err := ParseString(` {"b": 1.50, "a": [1e100, -0, "x\u00e9\ud83d\ude00"], "b2": null} `, Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := v.(*Object)
	if got := strings.Join(o.Keys(), ","); got != "b,a,b2" {
		t.Fatalf("keys = %s", got)
	}
	if got, _ := o.Get("b"); got != Number("1.50") {
		t.Fatalf("b = %#v", got)
	}
	out, _ := MarshalString(v, Python)
	if want := `{"b": 1.50, "a": [1e100, -0, "xé😀"], "b2": null}`; out != want {
		t.Fatalf("marshal = %s, want %s", out, want)
	}
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{"", "\ufeff{}", "{} x", "[1,]", `{"a":1,}`, "NaN", "01", "1.", `"\x01"`, "\"\xff\"", `{"a" 1}`} {
		if _, err := ParseString(in, Options{}); err == nil {
			t.Errorf("ParseString(%q) succeeded", in)
		}
	}
	if _, err := ParseString(`{"a":1,"a":2}`, Options{RejectDuplicates: true}); !errors.Is(err, ErrDuplicateKey) {
		t.Errorf("duplicate: %v", err)
	}
	if v, _ := ParseString(`{"a":1,"b":0,"a":2}`, Options{}); strings.Join(v.(*Object).Keys(), ",") != "a,b" {
		t.Error("last duplicate must win at the first position")
	}
	if _, err := ParseString(strings.Repeat("[", 20)+strings.Repeat("]", 20), Options{MaxDepth: 10}); !errors.Is(err, ErrTooDeep) {
		t.Errorf("depth: %v", err)
	}
}

func TestNonFinite(t *testing.T) {
	v, err := ParseString(`[NaN, Infinity, -Infinity]`, Options{NonFinite: true})
	if err != nil {
		t.Fatal(err)
	}
	l := v.([]any)
	if f, _ := ToFloat(l[0]); !math.IsNaN(f) {
		t.Error("NaN")
	}
	if _, err := MarshalString(v, Compact); !errors.Is(err, ErrNonFinite) {
		t.Errorf("compact must refuse non-finite: %v", err)
	}
	if s, _ := MarshalString(v, Python); s != "[NaN, Infinity, -Infinity]" {
		t.Errorf("python = %s", s)
	}
}

// FuzzRoundTrip: whatever parses re-encodes to an equal document.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e-3,"\u2028"],"b":{"c":null}}`, `[NaN]`, `"\ud800"`, `{"a":1,"a":2}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseString(s, Options{NonFinite: true})
		if err != nil {
			return
		}
		out, err := Marshal(v, Python)
		if err != nil {
			t.Fatal(err)
		}
		w, err := Parse(out, Options{NonFinite: true})
		if err != nil || !Equal(v, w) {
			t.Fatalf("round trip of %q gave %q (%v)", s, out, err)
		}
	})
}

// TestStringEscapes pins both string encoders: AppendString (raw UTF-8, the audit store's
// canonical form) and CanonicalPython (Python's ensure_ascii=True).
func TestStringEscapes(t *testing.T) {
	tests := []struct {
		in, raw, ascii string
	}{
		{`a"b\c`, `"a\"b\\c"`, `"a\"b\\c"`},
		{"\n\r\t\b\f", `"\n\r\t\b\f"`, `"\n\r\t\b\f"`},
		{"\x00\x1f\x7f", `"\u0000\u001f\u007f"`, `"\u0000\u001f\u007f"`},
		{"é€", `"é€"`, `"\u00e9\u20ac"`},
		{"\u2028\u2029", `"\u2028\u2029"`, `"\u2028\u2029"`},
		{"😀", `"😀"`, `"\ud83d\ude00"`},
		{"a\xffb", "\"a\ufffdb\"", `"a\ufffdb"`},
		{"/<>&", `"/<>&"`, `"/<>&"`},
	}
	for _, tt := range tests {
		if got := string(AppendString(nil, tt.in)); got != tt.raw {
			t.Errorf("AppendString(%q) = %s, want %s", tt.in, got, tt.raw)
		}
		got, err := CanonicalPython(tt.in)
		if err != nil || string(got) != tt.ascii {
			t.Errorf("CanonicalPython(%q) = %s, %v; want %s", tt.in, got, err, tt.ascii)
		}
	}
}

func TestTruthy(t *testing.T) {
	tests := []struct {
		v    any
		want bool
	}{
		{nil, false}, {false, false}, {true, true},
		{"", false}, {" ", true}, {"0", true},
		{Number("0"), false}, {Number("-0"), false}, {Number("0.0"), false}, {Number("0e5"), false},
		{Number("1e-400"), false}, // json.loads reads it as 0.0
		{Number("0.5"), true}, {Number("-3"), true}, {Number("1e400"), true},
		{Float(math.NaN()), true},
		{[]any{}, false}, {[]any{nil}, true},
		{NewObject(), false}, {ObjectOf("a", nil), true},
	}
	for _, tt := range tests {
		if got := Truthy(tt.v); got != tt.want {
			t.Errorf("Truthy(%#v) = %v, want %v", tt.v, got, tt.want)
		}
	}
}
