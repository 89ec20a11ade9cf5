package redact

import "strings"

// scrubEncoded finds the registered secret values in their encoded spellings, which a plain
// substring search misses: percent-encoded (a query string, a URL echoed back), JSON-escaped
// (\/, \", \\, \uXXXX, in a body carried as a string), ASCII case changed, and wrapped across
// lines (a line break, or an escaped \n, between two characters). Each secret character may
// come in any of those spellings. Called with the lock held by scrubValues's caller.
func scrubEncoded(s string, values []string) string {
	if len(values) == 0 {
		return s
	}
	// Only a byte that can begin a secret (its first byte in either case, or an escape)
	// is tried: the scan stays one cheap pass over text without secrets.
	var starts [256]bool
	starts['%'], starts['\\'] = true, true
	for _, v := range values {
		starts[v[0]], starts[foldByte(v[0])] = true, true
		if c := v[0]; c >= 'a' && c <= 'z' {
			starts[c-'a'+'A'] = true
		}
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if !starts[s[i]] {
			i++
			continue
		}
		end := -1
		for _, v := range values {
			if e, ok := matchEncoded(s, i, v); ok {
				end = e
				break
			}
		}
		if end < 0 {
			i++
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(Redacted)
		i, last = end, end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// matchEncoded reports whether secret v starts at s[i] in some spelling, and where it ends.
func matchEncoded(s string, i int, v string) (int, bool) {
	j := i
	for k := 0; k < len(v); k++ {
		if k > 0 {
			j = skipWrap(s, j)
		}
		c, n := decodeByte(s, j)
		if n == 0 || foldByte(c) != foldByte(v[k]) {
			return 0, false
		}
		j += n
	}
	return j, true
}

// decodeByte reads one byte at s[j] in any of its spellings: literal, %XX, or a JSON escape
// (\/ \" \\ \uXXXX below 0x80). n is how many bytes of s it took (0: none matched).
func decodeByte(s string, j int) (byte, int) {
	if j >= len(s) {
		return 0, 0
	}
	switch s[j] {
	case '%':
		if j+2 < len(s) {
			if h, ok := hexVal(s[j+1 : j+3]); ok {
				return byte(h), 3
			}
		}
	case '\\':
		if j+1 >= len(s) {
			break
		}
		switch s[j+1] {
		case '/', '"', '\\':
			return s[j+1], 2
		case 'u':
			if j+5 < len(s) {
				if h, ok := hexVal(s[j+2 : j+6]); ok && h < 0x80 {
					return byte(h), 6
				}
			}
		}
	}
	return s[j], 1
}

// skipWrap skips one line break between two characters of a secret: CR, LF or CRLF, or
// their JSON escapes, with the spaces around it.
func skipWrap(s string, j int) int {
	k := j
	for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
		k++
	}
	start := k
	for _, br := range []string{"\r\n", "\n", "\r", `\r\n`, `\n`, `\r`} {
		if strings.HasPrefix(s[k:], br) {
			k += len(br)
			break
		}
	}
	if k == start {
		return j
	}
	for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
		k++
	}
	return k
}

func hexVal(h string) (int, bool) {
	n := 0
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case c >= '0' && c <= '9':
			n = n*16 + int(c-'0')
		case c >= 'a' && c <= 'f':
			n = n*16 + int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			n = n*16 + int(c-'A'+10)
		default:
			return 0, false
		}
	}
	return n, true
}

func foldByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
