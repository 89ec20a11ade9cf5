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
