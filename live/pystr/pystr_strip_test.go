package pystr

import (
	"strings"
	"testing"
)

// TestStripFastPathMatchesTrim: Strip's ASCII shortcut gives what trimming every Python space
// gives, for each pair of ASCII ends and for strings with non-ASCII or space ends.
func TestStripFastPathMatchesTrim(t *testing.T) {
	var cases []string
	for a := 0; a < 128; a++ {
		for _, b := range []byte{' ', 'x', 0x1c, '\v', 'A', '\u0085' & 0x7f} {
			cases = append(cases, string([]byte{byte(a)}), string([]byte{byte(a), 'm', b}), string([]byte{b, 'm', byte(a)}))
		}
	}
	cases = append(cases, "", "AAPL", " AAPL ", "\u00a0AAPL", "AAPL\u3000", "\u2003x\u2003", "é", "xé", "éx", "\u0085AAPL\u0085")
	for _, s := range cases {
		if got, want := Strip(s), strings.TrimFunc(s, IsSpace); got != want {
			t.Errorf("Strip(%q) = %q, want %q", s, got, want)
		}
	}
}
