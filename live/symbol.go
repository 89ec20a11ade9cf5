package live

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"cockpit/live/pystr"
)

// symbolSeparators join the letter-and-digit parts of a symbol: a share class (BRK.B, BRK/B,
// BRK-B), a crypto pair (BTC/USD, BTC-USD) or a venue's pair (EUR_USD).
const symbolSeparators = "./-_"

// symbolError says why an order's symbol, as the agent or the client wrote it, is malformed,
// or nil. Around it only ASCII whitespace is ignored; inside it only ASCII letters and digits
// count, joined by single separators (. / - _) that neither start nor end it, and spaces only
// where an OCC option symbol pads its root (AAPL  250117C00150000). Anything else, a control
// character, a zero-width or other invisible character, a full-width or other non-ASCII
// letter, a trailing dot (GME.), would let a symbol look like another one (an excluded one) to
// a person or a broker while the gate saw a different string: the gate refuses it instead of
// guessing which symbol was meant.
func symbolError(raw string) error {
	s := raw
	for len(s) > 0 && isASCIISpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isASCIISpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	spaces := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case symbolClass[c] == alnum:
		case symbolClass[c] == separator:
			switch {
			case i == 0:
				return malformed(raw, fmt.Sprintf("it starts with %q", string(c)))
			case i == len(s)-1:
				return malformed(raw, fmt.Sprintf("it ends with %q", string(c)))
			case symbolClass[s[i-1]] == separator:
				return malformed(raw, fmt.Sprintf("%q has two separators in a row", s[i-1:i+1]))
			}
		case c == ' ':
			spaces = true
		case c >= 0x80:
			r, _ := utf8.DecodeRuneInString(s[i:])
			return malformed(raw, fmt.Sprintf("U+%04X at byte %d is not an ASCII letter or digit", r, i))
		case c >= 0x20 && c < 0x7f:
			return malformed(raw, fmt.Sprintf("%q at byte %d is not a letter, a digit or a separator", string(c), i))
		default:
			return malformed(raw, fmt.Sprintf("U+%04X at byte %d is not an ASCII letter or digit", c, i))
		}
	}
	if spaces {
		if _, err := ParseOCC(pystr.Upper(s)); err != nil {
			return malformed(raw, "it has a space inside (only an OCC option symbol pads its root with spaces)")
		}
	}
	return nil
}

func isASCIISpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

func malformed(raw, why string) error {
	return fmt.Errorf("symbol %s is malformed: %s; a symbol is ASCII letters and digits, joined by single '.', '/', '-' or '_'",
		pystr.Repr(raw), why)
}

// Byte classes of symbolError: a letter or digit, a separator, anything else.
const (
	other byte = iota
	alnum
	separator
)

var symbolClass = func() (t [256]byte) {
	for c := range 256 {
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			t[c] = alnum
		case strings.IndexByte(symbolSeparators, byte(c)) >= 0:
			t[c] = separator
		}
	}
	return t
}()
