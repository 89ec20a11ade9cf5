package scan

import (
	"math/rand"
	"strings"
	"testing"
)

// oldNeutralize is Neutralize before the cached IndexByte search, kept to check against.
func oldNeutralize(s string) (string, bool) {
	next := func(i int) int {
		for ; i < len(s); i++ {
			if c := s[i]; c == '<' || c == '[' {
				return i
			}
		}
		return -1
	}
	i := next(0)
	var b strings.Builder
	last := 0
	for i >= 0 {
		if n := tokenAt(s, i); n > 0 {
			b.WriteString(s[last : i+1])
			b.WriteString(zwsp)
			last = i + 1
			i = next(i + n)
			continue
		}
		i = next(i + 1)
	}
	if last == 0 {
		return s, false
	}
	b.WriteString(s[last:])
	return b.String(), true
}

// TestNeutralizeMatchesOld compares Neutralize with the byte-loop version on random texts
// built from token fragments.
func TestNeutralizeMatchesOld(t *testing.T) {
	pieces := []string{"<", "[", "|", "｜", ">", "]", "INST", "/", "s", "SYS", "<<", "im_start", "▁",
		"x", " ", "<s>", "[INST]", "<|", "|>", "<bos>", "start_of_turn", "é", "\xff"}
	rng := rand.New(rand.NewSource(15))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rng.Intn(80); k >= 0; k-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s := b.String()
		got, gotChanged := Neutralize(s)
		want, wantChanged := oldNeutralize(s)
		if got != want || gotChanged != wantChanged {
			t.Fatalf("%q: got %q %v, want %q %v", s, got, gotChanged, want, wantChanged)
		}
	}
}
