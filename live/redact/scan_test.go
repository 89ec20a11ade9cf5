package redact

import (
	"math/rand"
	"strings"
	"testing"

	"cockpit/live/pystr"
)

// naiveIndexBb is indexBb byte by byte.
func naiveIndexBb(s string, from int) int {
	for i := from; i < len(s); i++ {
		if s[i] == 'b' || s[i] == 'B' {
			return i
		}
	}
	return -1
}

// TestIndexBbMatchesNaive: every byte value at every offset of texts of 0 to 20 bytes, over a
// background of a (no match), b, B and each byte value, from every start, with a second
// candidate after the first (the eight-byte test must report the first, not a later one).
func TestIndexBbMatchesNaive(t *testing.T) {
	n := 0
	for length := 0; length <= 20; length++ {
		for _, fill := range []byte{'a', 'b', 'B', 0, 0x80, 0xff, 'b' - 1, 'b' + 1, 'B' ^ 0x80, 'b' ^ 0x80} {
			for pos := 0; pos < length; pos++ {
				for c := 0; c < 256; c++ {
					buf := []byte(strings.Repeat(string([]byte{fill}), length))
					buf[pos] = byte(c)
					if pos+3 < length {
						buf[pos+3] = 'B'
					}
					s := string(buf)
					for from := 0; from <= length; from++ {
						n++
						if got, want := indexBb(s, from), naiveIndexBb(s, from); got != want {
							t.Fatalf("%q from %d: got %d, want %d", s, from, got, want)
						}
					}
				}
			}
		}
	}
	t.Logf("%d cases", n)
}

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

// TestHasFoldPrefixMatchesPystr: every name part, "bearer" and "[redacted]", with each of
// its letters in turn replaced by its lower and upper case, each rune that folds to an
// ASCII letter, other non-ASCII runes, an invalid byte and nothing (the text ends), and
// random texts of differential-test pieces.
func TestHasFoldPrefixMatchesPystr(t *testing.T) {
	words := []string{"bearer", Redacted}
	for _, l := range [][]kvName{kvNames, piiNames} {
		for _, n := range l {
			words = append(words, n.first)
			if n.second != "" {
				words = append(words, n.second)
			}
		}
	}
	subs := []string{"İ", "ı", "K", "ſ", "é", "\u00a0", "\xff", "\xc3", "_", "-", "a", "Z", ""}
	check := func(s, w string) {
		gotN, gotOK := hasFoldPrefix(s, w)
		wantN, wantOK := pystr.HasFoldPrefix(s, w)
		if gotOK != wantOK || gotOK && gotN != wantN {
			t.Fatalf("%q, %q: got (%d %v), want (%d %v)", s, w, gotN, gotOK, wantN, wantOK)
		}
	}
	for _, w := range words {
		for j := 0; j < len(w); j++ {
			for _, sub := range append([]string{strings.ToLower(w[j : j+1]), strings.ToUpper(w[j : j+1])}, subs...) {
				for _, tail := range []string{"", "x", "=1"} {
					s := w[:j] + sub + w[j+1:] + tail
					check(s, w)
					check(strings.ToUpper(w[:j])+sub+w[j+1:]+tail, w)
					check(s[:j+len(sub)], w)
				}
			}
		}
	}
	rng := rand.New(rand.NewSource(19))
	for n := 0; n < 20000; n++ {
		s := randomText(rng, 6)
		for _, w := range words {
			check(s, w)
		}
	}
}
