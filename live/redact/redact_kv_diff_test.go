package redact

import (
	"math/rand"
	"strings"
	"testing"

	"cockpit/live/pystr"
)

// diffPieces build random texts for the differential tests: name fragments, separators,
// quotes, token prefixes, folding runes, non-ASCII spaces and invalid UTF-8.
var diffPieces = []string{"api", "key", "_", "-", "token", "secret", "pass", "word", "passwd", "auth",
	"account", "number", "ssn", "tax", "id", "bank", "=", ":", " ", "\t", "\n", "\"", "'", "x",
	"A", "Z", "9", "İ", "ı", "K", "ſ", "é", "\xff", "\xc3", "[redacted]", "bearer", "Bearer ", ",", ";",
	"API", "ToKeN", "SSN", "Sk", "\u00a0", "\u2003", "0", "sk-", "ghp_", "xoxb-", "AKIA", "pypi-", "eyJ",
	"aaaaaaaaaa", "AAAAAAAA", ".", "~", "+", "/", "==", "sk-aaaaaaaaaaaaaaaaaaaa", "ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	"xoxb-aaaaaaaaaa", "AKIAAAAAAAAAAAAAAAAA", "pypi-aaaaaaaaaaaaaaaa", "eyJaaaaaaaaaa.aaaaaaaaaa.aaaaa",
	"api_key=", "password: ", "'token'=", "\"secret\" : "}

func randomText(rng *rand.Rand, n int) string {
	var b strings.Builder
	for k := rng.Intn(n); k >= 0; k-- {
		b.WriteString(diffPieces[rng.Intn(len(diffPieces))])
	}
	return b.String()
}

// TestKeyValuesMatchOld compares the key=value passes with the pre-issue-15 implementation.
func TestKeyValuesMatchOld(t *testing.T) {
	rng := rand.New(rand.NewSource(15))
	for n := 0; n < 20000; n++ {
		s := randomText(rng, 24)
		if got, want := redactNamedValues(s, kvNames, "aipbrsct"), v0redactNamedValues(s, v0kvNames, "aipbrsct"); got != want {
			t.Fatalf("kv %q: got %q, want %q", s, got, want)
		}
		if got, want := redactNamedValues(s, piiNames, "abrst"), v0redactNamedValues(s, v0piiNames, "abrst"); got != want {
			t.Fatalf("pii %q: got %q, want %q", s, got, want)
		}
	}
}

// TestTextMatchesOld compares Text and each of its passes with the pre-issue-15 implementation.
func TestTextMatchesOld(t *testing.T) {
	rng := rand.New(rand.NewSource(16))
	var kept, keptWant []string // textPooled's results: they must not change as it runs again
	for n := 0; n < 20000; n++ {
		s := randomText(rng, 40)
		r := textPooledOrEmpty(s)
		kept, keptWant = append(kept, r), append(keptWant, strings.Clone(r))
		for _, c := range []struct {
			name      string
			got, want func(string) string
		}{{"Text", Text, v0Text}, {"textPooled", textPooledOrEmpty, v0Text}, {"bearer", redactBearer, v0redactBearer}, {"tokens", redactTokens, v0redactTokens}} {
			if got, want := c.got(s), c.want(s); got != want {
				t.Fatalf("%s %q: got %q, want %q", c.name, s, got, want)
			}
		}
	}
	for i := range kept {
		if kept[i] != keptWant[i] {
			t.Fatalf("textPooled's result %d changed from %q to %q", i, keptWant[i], kept[i])
		}
	}
}

// TestBearerValueRuneMatchesOld checks the table-driven class against its old definition on
// every code point.
func TestBearerValueRuneMatchesOld(t *testing.T) {
	for r := rune(0); r <= 0x10ffff; r++ {
		if got, want := bearerValueRune(r), v0bearerValueRune(r); got != want {
			t.Fatalf("%U: got %v, want %v", r, got, want)
		}
	}
}

// FuzzTextMatchesOld: Text and the key=value passes agree with the pre-issue-15 implementation.
func FuzzTextMatchesOld(f *testing.F) {
	for _, s := range []string{"Bearer abc== token=x", `"api_key": "v" sk-aaaaaaaaaaaaaaaaaaaaaa`, "İd_token=1 ſecret:2", "\xffpassword=\xc3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := v0Text(s)
		if got := Text(s); got != want {
			t.Fatalf("Text %q: got %q, want %q", s, got, want)
		}
		if got := textPooledOrEmpty(s); got != want {
			t.Fatalf("textPooled %q: got %q, want %q", s, got, want)
		}
		if got, want := redactNamedValues(s, piiNames, "abrst"), v0redactNamedValues(s, v0piiNames, "abrst"); got != want {
			t.Fatalf("pii %q: got %q, want %q", s, got, want)
		}
	})
}

// TestWordBoundaryMatchesPystr checks the ASCII fast path against pystr.WordBoundary at
// every offset of texts mixing ASCII, non-ASCII word and space runes, and invalid bytes.
func TestWordBoundaryMatchesPystr(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	for n := 0; n < 5000; n++ {
		s := randomText(rng, 12)
		for i := 0; i <= len(s); i++ {
			if got, want := wordBoundary(s, i), pystr.WordBoundary(s, i); got != want {
				t.Fatalf("%q at %d: got %v, want %v", s, i, got, want)
			}
		}
	}
}

// textPooledOrEmpty is Text through its pooled path whatever the length (Text takes it only
// for long texts), so the differential tests and the fuzzer cover that path on short ones.
func textPooledOrEmpty(s string) string {
	if s == "" {
		return s
	}
	return textPooled(s)
}
