package jsonv

import (
	"fmt"
	"testing"
)

// TestMapValues: the mapped object keeps the keys in order, finds every key (small objects
// by scan, large ones by index) and grows by Set like any other.
func TestMapValues(t *testing.T) {
	for _, n := range []int{0, 3, smallObject + 5} {
		o := NewObject()
		for i := range n {
			o.Set(fmt.Sprint("k", i), Number(fmt.Sprint(i)))
		}
		m := MapValues(o, func(m Member) any { return m.Key + "!" })
		if m.Len() != n {
			t.Fatalf("n=%d: len %d", n, m.Len())
		}
		for i := range n {
			k := fmt.Sprint("k", i)
			if got := m.Value(k); got != k+"!" || m.Members()[i].Key != k {
				t.Fatalf("n=%d: %s = %v at %q", n, k, got, m.Members()[i].Key)
			}
		}
		m.Set("new", true)
		if n > 0 {
			m.Set("k0", false)
		}
		if m.Value("new") != true || (n > 0 && m.Value("k0") != false) || m.Len() != n+1 {
			t.Fatalf("n=%d: Set after MapValues: %s", n, compact(m))
		}
		if o.Has("new") {
			t.Fatalf("n=%d: Set on the mapped object changed the source", n)
		}
	}
}
