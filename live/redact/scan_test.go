package redact

import "testing"

// TestKVValueMatchesOld compares kvValue with the pre-issue-15 one at every offset of every
// string of up to six pieces over quotes, a line break, value bytes, stop bytes, ASCII and
// non-ASCII spaces, a non-ASCII letter and an invalid byte.
func TestKVValueMatchesOld(t *testing.T) {
	pieces := []string{"\"", "'", "\n", "x", " ", ",", "\u00a0", "é", "\xff", "\x1c"}
	n := 0
	var walk func(s string, depth int)
	walk = func(s string, depth int) {
		for v := 0; v <= len(s); v++ {
			n++
			end, q, ok := kvValue(s, v)
			wantEnd, wantQ, wantOK := v0kvValue(s, v)
			gotQ := ""
			if q != 0 {
				gotQ = string(q)
			}
			if ok != wantOK || ok && (end != wantEnd || gotQ != wantQ) {
				t.Fatalf("%q at %d: got (%d %q %v), want (%d %q %v)", s, v, end, gotQ, ok, wantEnd, wantQ, wantOK)
			}
		}
		if depth == 0 {
			return
		}
		for _, p := range pieces {
			walk(s+p, depth-1)
		}
	}
	walk("", 6)
	t.Logf("%d cases", n)
}
