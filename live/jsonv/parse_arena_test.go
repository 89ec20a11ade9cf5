package jsonv

import "testing"

// TestArenaPiecesDoNotOverlap: containers cut from one parse's shared allocations grow
// apart: a Set on one object or an append to one list leaves its neighbours as they were.
func TestArenaPiecesDoNotOverlap(t *testing.T) {
	doc, err := ParseString(`[{"a":1},{"b":2},[3],[4]]`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	list := doc.([]any)
	first, second := list[0].(*Object), list[1].(*Object)
	first.Set("x", "new")
	first.Set("a", "changed")
	if got := compact(second); got != `{"b":2}` {
		t.Errorf("second object = %s, want {\"b\":2}", got)
	}
	inner := list[2].([]any)
	_ = append(inner, "grown")
	if got := compact(list[3]); got != `[4]` {
		t.Errorf("fourth element = %s, want [4]", got)
	}
	if got := compact(first); got != `{"a":"changed","x":"new"}` {
		t.Errorf("first object = %s", got)
	}
}

// compact is MarshalString in compact form.
func compact(v any) string {
	s, err := MarshalString(v, Compact)
	if err != nil {
		panic(err)
	}
	return s
}

// TestStacksClearAfterParse: the work stacks go back to the pool empty and with no pointer
// left into the document, whether it parsed or failed halfway in a nested container, and
// the next document parses as if the stacks were new.
func TestStacksClearAfterParse(t *testing.T) {
	tests := []struct {
		name, doc string
		ok        bool
	}{
		{"nested", `{"a":{"b":[1,"x",{"c":null}]},"d":[[2],[3]],"e":"f"}`, true},
		{"fails in an inner object", `{"a":{"b":[1,"x",{"c":nul}]}}`, false},
		{"fails in an inner list", `[[1,2,{"k":"v"}],[3,`, false},
		{"duplicate in an inner object", `{"a":[{"k":1,"k":2}]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseString(tt.doc, Options{RejectDuplicates: true})
			if (err == nil) != tt.ok {
				t.Fatalf("ParseString(%q) error = %v, want ok %v", tt.doc, err, tt.ok)
			}
			st := stacks.Get().(*stack)
			defer stacks.Put(st)
			if len(st.values) != 0 || len(st.members) != 0 {
				t.Errorf("pooled stacks hold %d values and %d members, want 0 and 0", len(st.values), len(st.members))
			}
			for i, v := range st.values[:cap(st.values)] {
				if v != nil {
					t.Errorf("pooled values[%d] = %v, want nil", i, v)
				}
			}
			for i, m := range st.members[:cap(st.members)] {
				if m != (Member{}) {
					t.Errorf("pooled members[%d] = %+v, want zero", i, m)
				}
			}
			got, err := ParseString(`{"z":[{"y":1},{"x":[true]}],"w":{}}`, Options{RejectDuplicates: true})
			if err != nil {
				t.Fatal(err)
			}
			if s := compact(got); s != `{"z":[{"y":1},{"x":[true]}],"w":{}}` {
				t.Errorf("next document = %s, want it as written", s)
			}
		})
	}
}

// TestArenaHintsOffTheMark: the arena's hints are counts of bytes that strings may hold too;
// a hint far under or over the document's real containers changes nothing in the result.
func TestArenaHintsOffTheMark(t *testing.T) {
	for _, doc := range []string{
		`{"a":"x:y:z:w:v:u","b":[1,2,3,4,5,6,7],"c":[[8],[9,10]]}`, // colons in a string: few items hinted
		`{"a":"p,q,r,s,t,u,v,w","b":[1],"c":{"d":[2,3]}}`,          // commas in a string: many hinted
		`[[],[1],[2,3],[4,5,6],{"k":[7,8,9,10]}]`,
		`{"a":{"b":{"c":{"d":[{"e":[1,2]},{"f":[]}]}}}}`,
	} {
		got, err := ParseString(doc, Options{RejectDuplicates: true})
		if err != nil {
			t.Fatalf("ParseString(%q): %v", doc, err)
		}
		if s := compact(got); s != doc {
			t.Errorf("ParseString(%q) = %s, want it as written", doc, s)
		}
	}
}
