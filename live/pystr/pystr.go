// Package pystr reproduces the few Python 3.11 string semantics that the reference's
// behaviour depends on: str.strip(), str.upper(), str.lower(), str.isalnum(), and the
// Unicode-aware \s, \w and IGNORECASE folding of Python's re module. Go's strings and regexp
// packages differ on each of them (ASCII \b and \s, no İ/ı folding, no "ß" → "SS").
package pystr

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsSpace reports Python's str.isspace() for one code point; it is also re's \s and the set
// str.strip() and str.split() use (29 code points).
func IsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, ' ', 0x85, 0xa0, 0x1680,
		0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// IsAlnum reports Python's str.isalnum() for one code point (letters and numbers; combining
// marks are not alphanumeric).
func IsAlnum(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}

// IsWord reports whether r is a word character for Python's re (\w, and the sides of \b).
func IsWord(r rune) bool { return r == '_' || IsAlnum(r) }

// Strip removes leading and trailing Python whitespace.
func Strip(s string) string {
	// Most strings (symbols, enum values) start and end with an ASCII non-space: nothing to
	// trim, and no rune decoding to find that out.
	if n := len(s); n > 0 && s[0] < utf8.RuneSelf && s[n-1] < utf8.RuneSelf && !IsSpace(rune(s[0])) && !IsSpace(rune(s[n-1])) {
		return s
	}
	return strings.TrimFunc(s, IsSpace)
}

// Upper is Python's str.upper(), including multi-letter results such as "ß" → "SS". An ASCII
// string with no lower-case letter (most symbols) is returned as it is, after one pass.
func Upper(s string) string {
	ascii, lower := true, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
		lower = lower || 'a' <= c && c <= 'z'
	}
	if ascii {
		if !lower {
			return s
		}
		return strings.ToUpper(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if sp, ok := upperSpecial[r]; ok {
			b.WriteString(sp)
			continue
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}

// Lower is Python's str.lower(); "İ" becomes "i̇" (two code points) as in Python.
// Python's context-dependent final sigma is not reproduced; no caller compares Greek text.
func Lower(s string) string {
	if !strings.ContainsRune(s, 'İ') {
		return strings.ToLower(s)
	}
	var b strings.Builder
	for _, r := range s {
		if r == 'İ' {
			b.WriteString("i\u0307")
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// FoldASCII returns the ASCII lower-case letter that r matches in a case-insensitive Python
// pattern written in ASCII, or r itself. Besides ASCII case, Python's re folds U+0130 (İ) and
// U+0131 (ı) to i, U+212A (Kelvin sign) to k, and U+017F (long s) to s.
func FoldASCII(r rune) rune {
	switch {
	case r >= 'A' && r <= 'Z':
		return r + ('a' - 'A')
	case r < utf8.RuneSelf:
		return r
	case r == 0x130 || r == 0x131:
		return 'i'
	case r == 0x212a:
		return 'k'
	case r == 0x17f:
		return 's'
	}
	return r
}

// HasFoldPrefix reports whether s starts with the ASCII lower-case word w under Python's
// IGNORECASE folding, and returns the byte length of the matched prefix of s.
func HasFoldPrefix(s, w string) (int, bool) {
	i := 0
	for j := 0; j < len(w); j++ {
		if i >= len(s) {
			return 0, false
		}
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if FoldASCII(r) != rune(w[j]) {
			return 0, false
		}
		i += size
	}
	return i, true
}

// RuneBefore returns the code point ending at byte offset i of s, or -1 at the start.
func RuneBefore(s string, i int) rune {
	if i <= 0 {
		return -1
	}
	if s[i-1] < utf8.RuneSelf {
		return rune(s[i-1])
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return r
}

// RuneAt returns the code point starting at byte offset i of s and its size, or (-1, 0) at the end.
func RuneAt(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	if s[i] < utf8.RuneSelf {
		return rune(s[i]), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// WordBoundary reports Python's \b at byte offset i of s (Unicode word characters).
func WordBoundary(s string, i int) bool {
	before := RuneBefore(s, i)
	after, _ := RuneAt(s, i)
	return (before >= 0 && IsWord(before)) != (after >= 0 && IsWord(after))
}

// Repr renders s the way Python's repr() renders a str, for messages that quote values.
func Repr(s string) string {
	quote := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	var b strings.Builder
	b.WriteByte(quote)
	for _, r := range s {
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&0xf])
		case !unicode.IsPrint(r) && r != ' ':
			switch {
			case r <= 0xff:
				b.WriteString(`\x`)
				writeHex(&b, r, 2)
			case r <= 0xffff:
				b.WriteString(`\u`)
				writeHex(&b, r, 4)
			default:
				b.WriteString(`\U`)
				writeHex(&b, r, 8)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

func writeHex(b *strings.Builder, r rune, n int) {
	for i := n - 1; i >= 0; i-- {
		b.WriteByte("0123456789abcdef"[(r>>(4*uint(i)))&0xf])
	}
}

// UpperStripEqual reports whether Upper(Strip(s)) == want, without building the string when
// s is ASCII (the exclude list's symbols against an order's).
func UpperStripEqual(s, want string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return Upper(Strip(s)) == want
		}
	}
	for len(s) > 0 && IsSpace(rune(s[0])) {
		s = s[1:]
	}
	for len(s) > 0 && IsSpace(rune(s[len(s)-1])) {
		s = s[:len(s)-1]
	}
	if len(s) != len(want) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c != want[i] {
			return false
		}
	}
	return true
}
