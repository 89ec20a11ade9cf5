package redact

// The text passes as they were before the throughput work (issue 15), kept to check the
// current ones against.

import (
	"strings"
	"unicode/utf8"

	"cockpit/live/pystr"
)

// v0Text scrubs credentials out of free text in three passes, in the reference's order:
//  1. "Bearer <token>" (case-insensitive; the whitespace run becomes one space),
//  2. key=value / key: value for credential-named keys (symmetric optional quotes around the
//     key, a value already "[redacted]" or starting with "bearer" left alone),
//  3. bare issuer tokens (sk-…, gh?_…, xox?-…, AKIA…, pypi-…, JWTs) not touching [A-Za-z0-9_-].
//
// Each pass is a hand-written matcher with Python re semantics (Unicode \b and \s, IGNORECASE
// folding of İ/ı/K/ſ), which Go's regexp cannot express. The result is idempotent.
func v0Text(s string) string {
	if s == "" {
		return s
	}
	s = v0redactBearer(s)
	s = v0redactKeyValues(s)
	return v0redactTokens(s)
}

// ---- pass 1: \b(bearer)\s+([A-Za-z0-9._~+/-]+=*)  (IGNORECASE)

func v0redactBearer(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i+6 <= len(s); i++ {
		if s[i] != 'b' && s[i] != 'B' {
			continue
		}
		if !pystr.WordBoundary(s, i) {
			continue
		}
		n, ok := pystr.HasFoldPrefix(s[i:], "bearer")
		if !ok {
			continue
		}
		j := i + n
		ws := j
		for {
			r, size := pystr.RuneAt(s, ws)
			if size == 0 || !pystr.IsSpace(r) {
				break
			}
			ws += size
		}
		if ws == j {
			continue
		}
		v := ws
		for {
			r, size := pystr.RuneAt(s, v)
			if size == 0 || !v0bearerValueRune(r) {
				break
			}
			v += size
		}
		if v == ws {
			continue
		}
		for v < len(s) && s[v] == '=' {
			v++
		}
		b.WriteString(s[last:i])
		b.WriteString(s[i : i+n])
		b.WriteString(" " + Redacted)
		last = v
		i = v - 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// v0bearerValueRune is [A-Za-z0-9._~+/-] under IGNORECASE.
func v0bearerValueRune(r rune) bool {
	f := pystr.FoldASCII(r)
	return f >= 'a' && f <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("._~+/-", r)
}

// ---- pass 2: credential key = value

// v0kvName is one alternative of the key-name group: first, an optional "_" or "-", then second.
type v0kvName struct{ first, second string }

// v0kvNames in the reference's order (longest first); single words have no second part.
var v0kvNames = []v0kvName{
	{"api", "key"}, {"api", "secret"}, {"access", "token"}, {"auth", "token"},
	{"refresh", "token"}, {"bearer", "token"}, {"id", "token"}, {"session", "token"},
	{"client", "secret"}, {"secret", "key"}, {"private", "key"}, {"app", "secret"},
	{"passphrase", ""}, {"password", ""}, {"passwd", ""}, {"authorization", ""},
	{"secret", ""}, {"token", ""},
}

func v0redactKeyValues(s string) string { return v0redactNamedValues(s, v0kvNames, "aipbrsct") }

// v0piiNames are account and identity keys cockpit also scrubs from free text before storage
// (the reference's text pass covers only credentials).
var v0piiNames = []v0kvName{
	{"bank_account", "number"}, {"brokerage_account", "number"}, {"brokerage_account", "id"},
	{"account", "number"}, {"account", "num"}, {"account", "no"}, {"account", "id"},
	{"routing", "number"}, {"social_security", "number"}, {"taxpayer", "id"}, {"tax", "id"}, {"ssn", ""},
}

func v0redactNamedValues(s string, names []v0kvName, firsts string) string {
	var b strings.Builder
	last := 0
	for p := 0; p < len(s); {
		_, size := pystr.RuneAt(s, p)
		if end, repl, ok := v0matchKeyValue(s, p, names, firsts); ok {
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

// v0matchKeyValue tries the key=value pattern at byte offset p, backtracking like Python's re.
// firsts holds the first letters of the names, to skip positions quickly.
func v0matchKeyValue(s string, p int, names []v0kvName, firsts string) (end int, replacement string, ok bool) {
	q := ""
	start := p
	if s[p] == '"' || s[p] == '\'' {
		q = s[p : p+1]
		start = p + 1
	}
	// \b before the name: the name starts with a letter, so the previous rune must not be a
	// word character (a quote never is).
	if q == "" && !pystr.WordBoundary(s, start) {
		return 0, "", false
	}
	if first, _ := pystr.RuneAt(s, start); first < 0 || !strings.ContainsRune(firsts, pystr.FoldASCII(first)) {
		return 0, "", false
	}
	for _, name := range names {
		for _, nameEnd := range name.match(s, start) {
			if e, repl, ok := v0kvTail(s, p, start, nameEnd, q); ok {
				return e, repl, true
			}
		}
	}
	return 0, "", false
}

// match returns the possible ends of the name at start, greedy option first.
func (n v0kvName) match(s string, start int) []int {
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

// v0kvTail matches \b (?P=q) \s*[:=]\s* (?!…) value after a name ending at nameEnd.
func v0kvTail(s string, p, start, nameEnd int, q string) (int, string, bool) {
	if !pystr.WordBoundary(s, nameEnd) {
		return 0, "", false
	}
	i := nameEnd
	if q != "" {
		if i >= len(s) || s[i] != q[0] {
			return 0, "", false
		}
		i++
	}
	sepStart := i
	i = v0skipSpace(s, i)
	if i >= len(s) || (s[i] != ':' && s[i] != '=') {
		return 0, "", false
	}
	i = v0skipSpace(s, i+1)
	v := i
	// A shorter trailing whitespace run would leave the value starting on whitespace, which
	// no value alternative accepts, so the greedy run is the only candidate.
	if v0kvLookaheadRejects(s, v) {
		return 0, "", false
	}
	vEnd, vq, ok := v0kvValue(s, v)
	if !ok {
		return 0, "", false
	}
	repl := q + s[start:nameEnd] + q + s[sepStart:v] + vq + Redacted + vq
	return vEnd, repl, true
}

func v0skipSpace(s string, i int) int {
	for {
		r, size := pystr.RuneAt(s, i)
		if size == 0 || !pystr.IsSpace(r) {
			return i
		}
		i += size
	}
}

// v0kvLookaheadRejects is (?=[\"']?\[redacted\][\"']?|bearer\b), case-insensitive.
func v0kvLookaheadRejects(s string, v int) bool {
	rest := s[v:]
	if _, ok := pystr.HasFoldPrefix(rest, Redacted); ok {
		return true
	}
	if rest != "" && (rest[0] == '"' || rest[0] == '\'') {
		if _, ok := pystr.HasFoldPrefix(rest[1:], Redacted); ok {
			return true
		}
	}
	if n, ok := pystr.HasFoldPrefix(rest, "bearer"); ok && pystr.WordBoundary(s, v+n) {
		return true
	}
	return false
}

// v0kvValue is "[^"\n]*" | '[^'\n]*' | [^\s,;{}\[\]()"']+ ; it returns the end and the quote.
func v0kvValue(s string, v int) (int, string, bool) {
	if v >= len(s) {
		return 0, "", false
	}
	if c := s[v]; c == '"' || c == '\'' {
		for j := v + 1; j < len(s); j++ {
			switch s[j] {
			case c:
				return j + 1, string(c), true
			case '\n':
				return 0, "", false
			}
		}
		return 0, "", false
	}
	j := v
	for {
		r, size := pystr.RuneAt(s, j)
		if size == 0 || pystr.IsSpace(r) || (r < utf8.RuneSelf && strings.IndexByte(",;{}[]()\"'", byte(r)) >= 0) {
			break
		}
		j += size
	}
	if j == v {
		return 0, "", false
	}
	return j, "", true
}

// ---- pass 3: bare issuer tokens (case-sensitive, ASCII neighbour guards)

func v0tokenClass(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func v0alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func v0redactTokens(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if i > 0 && v0tokenClass(s[i-1]) {
			continue
		}
		end := v0matchToken(s, i)
		if end < 0 {
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(Redacted)
		last = end
		i = end - 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// v0runOf returns the end of the longest run at i of bytes accepted by class.
func v0runOf(s string, i int, class func(byte) bool) int {
	for i < len(s) && class(s[i]) {
		i++
	}
	return i
}

// v0matchToken returns the end of a bare token starting at i, or -1.
func v0matchToken(s string, i int) int {
	rest := s[i:]
	guardOK := func(end int) int {
		if end < len(s) && v0tokenClass(s[end]) {
			return -1
		}
		return end
	}
	switch {
	case strings.HasPrefix(rest, "sk-"):
		if e := v0runOf(s, i+3, v0tokenClass); e-(i+3) >= 20 {
			return guardOK(e)
		}
	case len(rest) >= 4 && rest[0] == 'g' && rest[1] == 'h' && strings.IndexByte("pousr", rest[2]) >= 0 && rest[3] == '_':
		if e := v0runOf(s, i+4, v0alnum); e-(i+4) >= 30 {
			return guardOK(e)
		}
	case len(rest) >= 5 && strings.HasPrefix(rest, "xox") && strings.IndexByte("baprs", rest[3]) >= 0 && rest[4] == '-':
		if e := v0runOf(s, i+5, func(c byte) bool { return v0alnum(c) || c == '-' }); e-(i+5) >= 10 {
			return guardOK(e)
		}
	case strings.HasPrefix(rest, "AKIA"):
		upperDigit := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' }
		if len(rest) >= 20 && v0runOf(rest[:20], 4, upperDigit) == 20 {
			return guardOK(i + 20)
		}
	case strings.HasPrefix(rest, "pypi-"):
		if e := v0runOf(s, i+5, v0tokenClass); e-(i+5) >= 16 {
			return guardOK(e)
		}
	case strings.HasPrefix(rest, "eyJ"):
		e1 := v0runOf(s, i+3, v0tokenClass)
		if e1-(i+3) < 10 || e1 >= len(s) || s[e1] != '.' {
			return -1
		}
		e2 := v0runOf(s, e1+1, v0tokenClass)
		if e2-(e1+1) < 10 || e2 >= len(s) || s[e2] != '.' {
			return -1
		}
		if e3 := v0runOf(s, e2+1, v0tokenClass); e3-(e2+1) >= 5 {
			return guardOK(e3)
		}
	}
	return -1
}
