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

// plainSameAsFresh fails t unless Members on doc with pl (which has seen other documents)
// answers as a Plain that has seen none.
func plainSameAsFresh(t *testing.T, pl *jsonv.Plain, doc string) {
	t.Helper()
	spans, found := make([]string, len(plainNames)), make([]bool, len(plainNames))
	ok := pl.Members(doc, plainNames, spans, found)
	var fresh jsonv.Plain
	wantSpans, wantFound := make([]string, len(plainNames)), make([]bool, len(plainNames))
	if want := fresh.Members(doc, plainNames, wantSpans, wantFound); ok != want {
		t.Fatalf("%q: plain %v after other documents, %v fresh", doc, ok, want)
	}
	if !ok {
		return
	}
	for i := range plainNames {
		if spans[i] != wantSpans[i] || found[i] != wantFound[i] {
			t.Fatalf("%q: member %q = %q (%v) after other documents, %q (%v) fresh", doc, plainNames[i], spans[i], found[i], wantSpans[i], wantFound[i])
		}
	}
}

// TestPlainRemembersValues: a member whose text starts with the value the same member had in
// the document before is taken as that value only where a scan would take it.
func TestPlainRemembersValues(t *testing.T) {
	prev := `{"id": "a", "mandate": {"hard_caps": {"x": [1, 2]}}, "intent": [1, {"a": 2}]}`
	var pl jsonv.Plain
	for _, doc := range []string{
		prev,
		`{"id": "b", "mandate": {"hard_caps": {"x": [1, 2]}}, "intent": [1, {"a": 2}]}`,
		`{"id": "b", "mandate": {"hard_caps": {"x": [1, 2]}}}, "intent": [1, {"a": 2}]}`,
		`{"id": "b", "mandate": {"hard_caps": {"x": [1, 2]}}x, "intent": [1, {"a": 2}]}`,
		`{"id": "b", "mandate": {"hard_caps": {"x": [1, 2]}}, "mandate": {"hard_caps": {"x": [1, 2]}}}`,
		`{"id": "b", "mandate": {"hard_caps": {"x": [1, 2]}}, "intent": [1, {"a": 2}]2}`,
		`{"id": "b", "intent": {"hard_caps": {"x": [1, 2]}}, "mandate": [1, {"a": 2}]}`,
		`{"id": "b", "mandate": {"hard_caps": {"x": [1, 2]}}`,
		`{"mandate": {"hard_caps": {"x": [1, 2]}},"intent":[1, {"a": 2}]   }`,
		`{"id": {"hard_caps": {"x": [1, 2]}}, "daily_count": [1, {"a": 2}], "mandate": 1}`,
	} {
		plainSameAsFresh(t, &pl, doc)
		plainAgrees(t, &pl, doc)
		plainSameAsFresh(t, &pl, prev)
	}
}

// FuzzPlainAfterAnother: Members after another document answers as a fresh Plain does.
func FuzzPlainAfterAnother(f *testing.F) {
	lines := benchcorpus.BatchLines(f, 20)
	for i := range lines {
		f.Add(lines[i], lines[(i+1)%len(lines)])
	}
	f.Fuzz(func(t *testing.T, prev, doc string) {
		var pl jsonv.Plain
		pl.Members(prev, plainNames, make([]string, len(plainNames)), make([]bool, len(plainNames)))
		plainSameAsFresh(t, &pl, doc)
		plainAgrees(t, &pl, doc)
	})
}

// TestAppendPlainStringIsAppendString: every byte value, alone and amid plain text.
func TestAppendPlainStringIsAppendString(t *testing.T) {
	for c := range 256 {
		for _, s := range []string{string(rune(c)), string([]byte{byte(c)}), "ab" + string([]byte{byte(c)}) + "cd", "plain text"} {
			if got, want := string(jsonv.AppendPlainString([]byte("x"), s)), string(jsonv.AppendString([]byte("x"), s)); got != want {
				t.Fatalf("AppendPlainString(%q) = %s, want %s", s, got, want)
			}
		}
	}
}

var nestedNames = []string{"symbol", "side", "a", "$float"}

// nestedAgrees fails t unless MembersNested on doc, asking for the members of "intent",
// answers as Members does for doc and, when the intent is an object, as a fresh Members of
// the intent's text does for the nested names.
func nestedAgrees(t *testing.T, pl *jsonv.Plain, doc string) {
	t.Helper()
	spans, found := make([]string, len(plainNames)), make([]bool, len(plainNames))
	sub := jsonv.Nested{Of: 2, Names: nestedNames, Spans: make([]string, len(nestedNames)), Found: make([]bool, len(nestedNames))}
	sub.Found[0], sub.Object = true, true // stale answers from before: cleared
	ok := pl.MembersNested(doc, plainNames, spans, found, &sub)
	var fresh jsonv.Plain
	wantSpans, wantFound := make([]string, len(plainNames)), make([]bool, len(plainNames))
	if want := fresh.Members(doc, plainNames, wantSpans, wantFound); ok != want {
		t.Fatalf("%q: MembersNested %v, Members %v", doc, ok, want)
	}
	if !ok {
		return
	}
	for i := range plainNames {
		if spans[i] != wantSpans[i] || found[i] != wantFound[i] {
			t.Fatalf("%q: member %q = %q (%v), Members %q (%v)", doc, plainNames[i], spans[i], found[i], wantSpans[i], wantFound[i])
		}
	}
	isObject := found[2] && spans[2][0] == '{'
	if sub.Object != isObject {
		t.Fatalf("%q: Object %v, want %v", doc, sub.Object, isObject)
	}
	if !isObject {
		for i, f := range sub.Found {
			if f {
				t.Fatalf("%q: nested %q found in no object", doc, nestedNames[i])
			}
		}
		return
	}
	var inner jsonv.Plain
	innerSpans, innerFound := make([]string, len(nestedNames)), make([]bool, len(nestedNames))
	if !inner.Members(spans[2], nestedNames, innerSpans, innerFound) {
		t.Fatalf("%q: the intent %q is not plain alone", doc, spans[2])
	}
	for i := range nestedNames {
		if sub.Spans[i] != innerSpans[i] || sub.Found[i] != innerFound[i] {
			t.Fatalf("%q: nested %q = %q (%v), Members of the intent %q (%v)", doc, nestedNames[i], sub.Spans[i], sub.Found[i], innerSpans[i], innerFound[i])
		}
	}
}

// TestPlainMembersNested: the nested members come from the same scan, as a scan of the
// member's own text gives them.
func TestPlainMembersNested(t *testing.T) {
	var pl jsonv.Plain
	for _, doc := range []string{
		`{"id": "a", "intent": {"symbol": "AAPL", "side": "buy", "x": {"a": 1}}, "mandate": {}}`,
		`{"intent": {"a": [1, {"symbol": 2}], "symbol": "X"}}`,
		`{"intent": {"a": 1, "a": 2}}`,
		`{"intent": {"a": 1}, "intent": {"a": 1}}`,
		`{"intent": [1, {"a": 2}]}`,
		`{"intent": {}}`,
		`{"intent": {"$float": "nan"}}`,
		`{"intent": "x", "id": {"symbol": 1}}`,
		`{"intent": {"a": 1}} x`,
		`{"intent": `,
		`{"intent": {`,
		`{"intent": {"a": ` + strings.Repeat("[", 14) + strings.Repeat("]", 14) + `}}`,
		`{"intent": {"a": ` + strings.Repeat("[", 15) + strings.Repeat("]", 15) + `}}`,
	} {
		nestedAgrees(t, &pl, doc)
	}
	for _, doc := range benchcorpus.BatchLines(t, 50) {
		nestedAgrees(t, &pl, doc)
	}
}

// FuzzPlainMembersNested: MembersNested answers as Members does, for the document and for
// the intent's own text.
func FuzzPlainMembersNested(f *testing.F) {
	for _, s := range benchcorpus.BatchLines(f, 20) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var pl jsonv.Plain
		nestedAgrees(t, &pl, doc)
		nestedAgrees(t, &pl, doc) // the scratch space reused
	})
}

// TestPlainRemembersSeenValues: a long member value seen before, though not in the document
// just before, is taken as that value only where a scan would take it.
func TestPlainRemembersSeenValues(t *testing.T) {
	long := `{"hard_caps": {"x": [1, 2], "y": "` + strings.Repeat("z", 60) + `"}}`
	other := `{"hard_caps": {"x": [3], "y": "` + strings.Repeat("w", 60) + `"}}`
	first := `{"id": "a", "mandate": ` + long + `}`
	second := `{"id": "b", "mandate": ` + other + `}`
	for _, doc := range []string{
		first,
		`{"id": "c", "mandate": ` + long + `, "intent": {}}`,
		`{"id": "c", "mandate": ` + long + `}}`,
		`{"id": "c", "mandate": ` + long + `x}`,
		`{"id": "c", "mandate": ` + long + `, "mandate": ` + long + `}`,
		`{"id": "c", "intent": ` + long + `, "mandate": ` + long + `}`,
		`{"id": ` + long + `, "daily_count": ` + long + `}`,
		`{"id": "c", "mandate": ` + long[:len(long)-1] + `}`,
		`{"id": "c", "mandate": ` + strings.Replace(long, `"z`, `"\z`, 1) + `}`,
		`{"id": "c", "mandate": [` + long + `]}`,
	} {
		var pl jsonv.Plain
		for _, seen := range []string{first, second, first, second} { // kept once seen twice
			pl.Members(seen, plainNames, make([]string, len(plainNames)), make([]bool, len(plainNames)))
		}
		plainSameAsFresh(t, &pl, doc)
		plainAgrees(t, &pl, doc)
		nestedAgrees(t, &pl, doc)
	}
}

// FuzzPlainAfterOthers: Members after two other documents answers as a fresh Plain does.
func FuzzPlainAfterOthers(f *testing.F) {
	lines := benchcorpus.BatchLines(f, 40)
	for i := range lines {
		f.Add(lines[i], lines[(i+1)%len(lines)], lines[(i+7)%len(lines)])
	}
	f.Fuzz(func(t *testing.T, a, b, doc string) {
		var pl jsonv.Plain
		for _, seen := range []string{a, b, a, b} {
			pl.Members(seen, plainNames, make([]string, len(plainNames)), make([]bool, len(plainNames)))
		}
		plainSameAsFresh(t, &pl, doc)
		plainAgrees(t, &pl, doc)
		nestedAgrees(t, &pl, doc)
	})
}
