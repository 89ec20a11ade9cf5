package redact

import (
	"strings"
	"testing"
)

// TestPairPrefilterNeverRejectsAMatch: at every two-byte prefix (all 128×128 ASCII pairs
// and a few non-ASCII folds), unquoted and after either quote, followed by every name's
// rest in both cases and a value, at the end of the string and before one more byte, the
// matcher with the pair table agrees with the matcher without it.
func TestPairPrefilterNeverRejectsAMatch(t *testing.T) {
	lists := []struct {
		names  []kvName
		firsts string
	}{{kvNames, "aipbrsct"}, {piiNames, "abrst"}}
	var heads []string
	for a := 0; a < 128; a++ {
		for b := 0; b < 128; b++ {
			heads = append(heads, string([]byte{byte(a), byte(b)}))
		}
		heads = append(heads, string([]byte{byte(a)}))
	}
	for _, nonASCII := range []string{"\u0130", "\u0131", "\u212a", "\u017f", "\xff", "\xc3"} {
		heads = append(heads, nonASCII, nonASCII+"d", "s"+nonASCII, nonASCII+nonASCII)
	}
	n := 0
	for _, l := range lists {
		pairs := pairsOf(l.names)
		if pairs == nil {
			t.Fatal("no pair table")
		}
		var tails []string
		for _, nm := range l.names {
			full := nm.first
			if nm.second != "" {
				full += "_" + nm.second
			}
			for _, cut := range []int{1, 2, 3} {
				if cut <= len(full) {
					tails = append(tails, full[cut:], strings.ToUpper(full[cut:]))
				}
			}
		}
		tails = append(tails, "")
		for _, q := range []string{"", "\"", "'"} {
			for _, h := range heads {
				for _, tl := range tails {
					for _, rest := range []string{"", q + "=v", q + ": 'x'", "x"} {
						s := q + h + tl + rest
						for _, pre := range []string{"", " "} {
							s := pre + s
							p := len(pre)
							if p >= len(s) {
								continue
							}
							m1, ok1 := matchKeyValue(s, p, l.names, l.firsts, pairs)
							m2, ok2 := matchKeyValue(s, p, l.names, l.firsts, nil)
							n++
							if m1 != m2 || ok1 != ok2 {
								t.Fatalf("%q at %d: with pairs (%+v %v), without (%+v %v)", s, p, m1, ok1, m2, ok2)
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d cases", n)
}

// TestFirstsCoverNames: each list's firsts holds the first letter of each of its names (the
// pair table's path skips the firsts check, which would reject a name outside it).
func TestFirstsCoverNames(t *testing.T) {
	for _, l := range []struct {
		names  []kvName
		firsts string
	}{{kvNames, "aipbrsct"}, {piiNames, "abrst"}} {
		for _, n := range l.names {
			if !strings.Contains(l.firsts, n.first[:1]) {
				t.Errorf("%s: %q not in %q", n.first, n.first[:1], l.firsts)
			}
		}
	}
}
