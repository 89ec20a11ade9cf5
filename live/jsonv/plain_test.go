package jsonv_test

import (
	"strings"
	"testing"

	"cockpit/internal/benchcorpus"
	"cockpit/live/jsonv"
)

var plainNames = []string{"id", "mandate", "intent", "daily_count"}

// plainAgrees fails t unless, when Plain takes doc, the strict parse takes it too and each
// member Plain hands back is, through PlainValue, the strict parse's value; it reports whether
// Plain took doc.
func plainAgrees(t *testing.T, pl *jsonv.Plain, doc string) bool {
	t.Helper()
	spans := make([]string, len(plainNames))
	found := make([]bool, len(plainNames))
	if !pl.Members(doc, plainNames, spans, found) {
		return false
	}
	v, err := jsonv.ParseString(doc, jsonv.Options{NonFinite: true, RejectDuplicates: true})
	if err != nil {
		t.Fatalf("plain %q does not parse strictly: %v", doc, err)
	}
	o, ok := v.(*jsonv.Object)
	if !ok {
		t.Fatalf("plain %q is not an object", doc)
	}
	for i, name := range plainNames {
		want, has := o.Get(name)
		if has != found[i] {
			t.Fatalf("%q: member %q found %v, strict parse %v", doc, name, found[i], has)
		}
		if !has {
			continue
		}
		got, ok := jsonv.PlainValue(spans[i])
		if !ok || !jsonv.Equal(got, want) {
			t.Fatalf("%q: member %q = %v (%v), want %v", doc, name, got, ok, want)
		}
	}
	return true
}

// TestPlainMembers: what the plain subset takes and what it leaves to the strict parser.
func TestPlainMembers(t *testing.T) {
	for _, tc := range []struct {
		doc   string
		plain bool
	}{
		{`{}`, true},
		{` {"id": "a", "x": [1, 2.5e3, -0, true, false, null, {}], "daily_count": 3} `, true},
		{`{"id": "a", "intent": {"symbol": "AAPL"}, "mandate": {"hard_caps": {}}}`, true},
		{`{"id": "a\u0062"}`, false},                        // an escape
		{`{"id": "é"}`, false},                              // non-ASCII
		{`{"id": NaN}`, false},                              // Python's literals
		{`{"id": "a", "id": "b"}`, false},                   // a repeated name
		{`{"x": {"a": 1, "a": 2}}`, false},                  // a repeated name, nested
		{`{"x": {"a": 1}, "y": {"a": 2}}`, true},            // the same name in two objects
		{`{"id": 1` + strings.Repeat("0", 40) + `}`, false}, // a long number
		{`{"x": ` + strings.Repeat("[", 17) + strings.Repeat("]", 17) + `}`, false},
		{`{"x": ` + strings.Repeat("[", 15) + strings.Repeat("]", 15) + `}`, true},
		{`{"id": "a",}`, false},
		{`{"id": "a"} x`, false},
		{`[1]`, false},
		{`{"id": 01}`, false},
		{`{"id": 1.}`, false},
		{`{"id": tru}`, false},
	} {
		var pl jsonv.Plain
		if got := plainAgrees(t, &pl, tc.doc); got != tc.plain {
			t.Errorf("Members(%q) plain = %v, want %v", tc.doc, got, tc.plain)
		}
	}
}

// FuzzPlainAgreesWithParse: any document the plain scanner takes parses strictly, to the
// member values it handed back.
func FuzzPlainAgreesWithParse(f *testing.F) {
	for _, s := range benchcorpus.BatchLines(f, 20) {
		f.Add(s)
	}
	f.Add(`{"id": "a", "id": "b"}`)
	f.Fuzz(func(t *testing.T, doc string) {
		var pl jsonv.Plain
		plainAgrees(t, &pl, doc)
		plainAgrees(t, &pl, doc) // the scratch space reused
	})
}
