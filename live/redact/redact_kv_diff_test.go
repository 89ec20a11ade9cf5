package redact

import (
	"math/rand"
	"strings"
	"testing"

	"cockpit/live/pystr"
)

// oldRedactNamedValues is the key=value pass before the first-byte skips, kept to check the
// current one against.
func oldRedactNamedValues(s string, names []kvName, firsts string) string {
	var b strings.Builder
	last := 0
	for p := 0; p < len(s); {
		_, size := pystr.RuneAt(s, p)
		if end, repl, ok := oldMatchKeyValue(s, p, names, firsts); ok {
			b.WriteString(s[last:p])
			b.WriteString(repl)
			last = end
			p = end
			continue
		}
		p += size
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func oldMatchKeyValue(s string, p int, names []kvName, firsts string) (int, string, bool) {
	q := ""
	start := p
	if s[p] == '"' || s[p] == '\'' {
		q = s[p : p+1]
		start = p + 1
	}
	if q == "" && !pystr.WordBoundary(s, start) {
		return 0, "", false
	}
	if first, _ := pystr.RuneAt(s, start); first < 0 || !strings.ContainsRune(firsts, pystr.FoldASCII(first)) {
		return 0, "", false
	}
	for _, name := range names {
		for _, nameEnd := range oldMatch(name, s, start) {
			if e, repl, ok := kvTail(s, p, start, nameEnd, q); ok {
				return e, repl, true
			}
		}
	}
	return 0, "", false
}

// TestKeyValuesMatchOld compares the key=value passes with the old implementation on random
// texts built from name fragments, separators, quotes, folding runes and invalid UTF-8.
func TestKeyValuesMatchOld(t *testing.T) {
	pieces := []string{"api", "key", "_", "-", "token", "secret", "pass", "word", "passwd", "auth",
		"account", "number", "ssn", "tax", "id", "bank", "=", ":", " ", "\t", "\n", "\"", "'", "x",
		"A", "Z", "9", "İ", "ı", "K", "ſ", "é", "\xff", "\xc3", "[redacted]", "bearer", ",", ";",
		"API", "ToKeN", "SSN", "Sk", "\u00a0", "\u2003", "0"}
	rng := rand.New(rand.NewSource(15))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rng.Intn(24); k >= 0; k-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s := b.String()
		if got, want := redactNamedValues(s, kvNames, "aipbrsct"), oldRedactNamedValues(s, kvNames, "aipbrsct"); got != want {
			t.Fatalf("kv %q: got %q, want %q", s, got, want)
		}
		if got, want := redactNamedValues(s, piiNames, "abrst"), oldRedactNamedValues(s, piiNames, "abrst"); got != want {
			t.Fatalf("pii %q: got %q, want %q", s, got, want)
		}
	}
}

func oldMatch(n kvName, s string, start int) []int {
	a, ok := pystr.HasFoldPrefix(s[start:], n.first)
	if !ok {
		return nil
	}
	pos := start + a
	if n.second == "" {
		return []int{pos}
	}
	var ends []int
	if pos < len(s) && (s[pos] == '_' || s[pos] == '-') {
		if c, ok := pystr.HasFoldPrefix(s[pos+1:], n.second); ok {
			ends = append(ends, pos+1+c)
		}
	}
	if c, ok := pystr.HasFoldPrefix(s[pos:], n.second); ok {
		ends = append(ends, pos+c)
	}
	return ends
}

// TestBearerValueRuneMatchesOld checks the table-driven class against its old definition on
// every code point (and RuneError).
func TestBearerValueRuneMatchesOld(t *testing.T) {
	old := func(r rune) bool {
		f := pystr.FoldASCII(r)
		return f >= 'a' && f <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("._~+/-", r)
	}
	for r := rune(0); r <= 0x10ffff; r++ {
		if got, want := bearerValueRune(r), old(r); got != want {
			t.Fatalf("%U: got %v, want %v", r, got, want)
		}
	}
}
