// Package termsafe shows text that came from outside the process (an agent, an MCP client, a
// broker, a fleet peer, an SSH key comment, a file) on a terminal without letting it drive the
// terminal: escape sequences, bells, clipboard writes, cursor moves and invisible or
// reordering characters are written as visible escapes, never sent as they are. It is a leaf
// package (standard library only), so every package may use it.
package termsafe

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// Text returns s as one line that prints as what it says. Every character a terminal could
// act on or that would hide in the output is written as a visible escape: line feeds, carriage
// returns and tabs as \n, \r and \t; other C0 controls, DEL, C1 controls and bytes that are not
// UTF-8 as \xNN; line and paragraph separators, format characters (zero-width spaces, bidi
// overrides), spaces other than ' ' and other non-printing characters as \uNNNN or
// \UNNNNNNNN. Everything else, backslashes included, is kept, so Text(Text(s)) == Text(s).
func Text(s string) string { return escape(s, false) }

// Lines is Text for a message of several lines whose line breaks are the program's own: line
// feeds and tabs are kept, every other character Text escapes is escaped.
func Lines(s string) string { return escape(s, true) }

// Safe reports whether s prints as it is (Text(s) == s).
func Safe(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if hidden(r, size) {
			return false
		}
		i += size
	}
	return true
}

// hidden reports a non-ASCII rune (or an invalid byte, size 1) that Text escapes.
func hidden(r rune, size int) bool {
	return r == utf8.RuneError && size == 1 || r < 0xa0 || !unicode.IsPrint(r)
}

func escape(s string, keepLines bool) string {
	if Safe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case keepLines && (c == '\n' || c == '\t'):
				b.WriteByte(c)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\r':
				b.WriteString(`\r`)
			case c == '\t':
				b.WriteString(`\t`)
			case c < 0x20 || c == 0x7f:
				writeHex(&b, `\x`, rune(c), 2)
			default:
				b.WriteByte(c)
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeHex(&b, `\x`, rune(c), 2)
		case !hidden(r, size):
			b.WriteString(s[i : i+size])
		case r <= 0xff:
			writeHex(&b, `\x`, r, 2)
		case r <= 0xffff:
			writeHex(&b, `\u`, r, 4)
		default:
			writeHex(&b, `\U`, r, 8)
		}
		i += size
	}
	return b.String()
}

func writeHex(b *strings.Builder, prefix string, r rune, digits int) {
	b.WriteString(prefix)
	for shift := 4 * (digits - 1); shift >= 0; shift -= 4 {
		b.WriteByte(hexDigits[(r>>shift)&0xf])
	}
}
