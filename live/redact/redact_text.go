package redact

import (
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"cockpit/live/pystr"
)

// Text scrubs credentials out of free text in three passes, in the reference's order:
//  1. "Bearer <token>" (case-insensitive; the whitespace run becomes one space),
//  2. key=value / key: value for credential-named keys (symmetric optional quotes around the
//     key, a value already "[redacted]" or starting with "bearer" left alone),
//  3. bare issuer tokens (sk-…, gh?_…, xox?-…, AKIA…, pypi-…, JWTs) not touching [A-Za-z0-9_-].
//
// Each pass is a hand-written matcher with Python re semantics (Unicode \b and \s, IGNORECASE
// folding of İ/ı/K/ſ), which Go's regexp cannot express. The result is idempotent.
func Text(s string) string {
	if s == "" {
		return s
	}
	if len(s) < textScratchMin {
		return redactTokens(redactKeyValues(redactBearer(s)))
	}
	return textPooled(s)
}

// textPooled is Text for a non-empty text, used for long ones: the first two passes write
// into buffers kept for the next call. Their outputs are read once, by the next pass, and
// fresh memory as large as the text costs more to fault in and collect than the passes cost
// to run. Only the result is new.
func textPooled(s string) string {
	sc := textScratchPool.Get().(*textScratch)
	t, inScratch := s, false
	if out, ok := appendBearer(sc.a[:0], t); ok {
		sc.a, t, inScratch = out, bytesString(out), true
	}
	if out, ok := appendNamedValues(sc.b[:0], t, kvNames, "aipbrsct"); ok {
		sc.b, t, inScratch = out, bytesString(out), true
	}
	r, changed := tokensPass(t)
	if !changed && inScratch {
		r = strings.Clone(t) // t is a scratch buffer, written again by the next call
	}
	if cap(sc.a) > textScratchMax {
		sc.a = nil
	}
	if cap(sc.b) > textScratchMax {
		sc.b = nil
	}
	textScratchPool.Put(sc)
	return r
}

// Text's scratch buffers are used from textScratchMin bytes of text on and not kept once
// grown past textScratchMax.
const (
	textScratchMin = 16 << 10
	textScratchMax = 16 << 20
)

// textScratch holds the outputs of Text's first two passes.
type textScratch struct{ a, b []byte }

var textScratchPool = sync.Pool{New: func() any { return new(textScratch) }}

// bytesString is b as a string without a copy; b must not be written while it is used.
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// growFor returns dst with room for n more bytes.
func growFor(dst []byte, n int) []byte { return slices.Grow(dst, n) }

// ---- pass 1: \b(bearer)\s+([A-Za-z0-9._~+/-]+=*)  (IGNORECASE)

func redactBearer(s string) string {
	if out, ok := appendBearer(nil, s); ok {
		return bytesString(out)
	}
	return s
}

// appendBearer appends the bearer pass's output to dst, or reports that it changes nothing
// (dst is then returned as it was).
func appendBearer(dst []byte, s string) ([]byte, bool) {
	matched := false
	last := 0
	for i := 0; i+6 <= len(s); i++ {
		if s[i] != 'b' && s[i] != 'B' {
			if i = indexBb(s, i+1); i < 0 {
				break
			}
		}
		if i+6 > len(s) || !wordBoundary(s, i) {
			continue
		}
		n, ok := hasFoldPrefix(s[i:], "bearer")
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
		for v < len(s) {
			if c := s[v]; c < utf8.RuneSelf {
				if !bearerValueASCII[c] {
					break
				}
				v++
				continue
			}
			r, size := utf8.DecodeRuneInString(s[v:])
			if !bearerValueRune(r) {
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
		if !matched {
			dst, matched = growFor(dst, len(s)), true
		}
		dst = append(dst, s[last:i+n]...)
		dst = append(dst, " "+Redacted...)
		last = v
		i = v - 1
	}
	if !matched {
		return dst, false
	}
	return append(dst, s[last:]...), true
}

// indexBb returns the offset of the first 'b' or 'B' in s at or after from, or -1. It tests
// eight bytes at a time: x|0x20 maps exactly 'b' and 'B' (and no other byte) to 'b', and the
// lowest byte of x|0x20 ^ "bbbbbbbb" that the zero-byte test flags is its first zero byte.
func indexBb(s string, from int) int {
	const ones, highs, bs = 0x0101010101010101, 0x8080808080808080, 0x6262626262626262
	i := from
	for ; i+8 <= len(s); i += 8 {
		w := s[i : i+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		y := x | 0x2020202020202020 ^ bs
		if z := (y - ones) &^ y & highs; z != 0 {
			return i + bits.TrailingZeros64(z)>>3
		}
	}
	for ; i < len(s); i++ {
		if s[i]|0x20 == 'b' {
			return i
		}
	}
	return -1
}

// bearerValueRune is [A-Za-z0-9._~+/-] under IGNORECASE.
func bearerValueRune(r rune) bool {
	if r >= 0 && r < utf8.RuneSelf {
		return bearerValueASCII[r]
	}
	f := pystr.FoldASCII(r)
	return f >= 'a' && f <= 'z'
}

// bearerValueASCII is bearerValueRune on ASCII.
var bearerValueASCII = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._~+/-", byte(c)) >= 0
	}
	return t
}()

// ---- pass 2: credential key = value

// kvName is one alternative of the key-name group: first, an optional "_" or "-", then second.
type kvName struct{ first, second string }

// kvNames in the reference's order (longest first); single words have no second part.
var kvNames = []kvName{
	{"api", "key"}, {"api", "secret"}, {"access", "token"}, {"auth", "token"},
	{"refresh", "token"}, {"bearer", "token"}, {"id", "token"}, {"session", "token"},
	{"client", "secret"}, {"secret", "key"}, {"private", "key"}, {"app", "secret"},
	{"passphrase", ""}, {"password", ""}, {"passwd", ""}, {"authorization", ""},
	{"secret", ""}, {"token", ""},
}

func redactKeyValues(s string) string { return redactNamedValues(s, kvNames, "aipbrsct") }

// Candidate-byte tables of the two name lists, built once.
var (
	kvCand  = candidateBytes("aipbrsct")
	piiCand = candidateBytes("abrst")
)

// Name-start tables of the two name lists, built once (namePairs).
var (
	kvPairs  = namePairs(kvNames)
	piiPairs = namePairs(piiNames)
)

// pairTable holds, for the two lower-case ASCII bytes a name can start with, the set of
// names (bit k: names[k]) that start with them.
type pairTable [utf8.RuneSelf][utf8.RuneSelf]uint32

// namePairs marks each name's first two letters; a one-letter first part allows any second
// byte. Only ASCII text is judged by it: a non-ASCII byte may fold to a name's letter (K, ſ).
func namePairs(names []kvName) *pairTable {
	if len(names) > 32 {
		panic("redact: more than 32 names in a list")
	}
	var t pairTable
	for k, n := range names {
		if len(n.first) < 2 {
			for c := range t[n.first[0]] {
				t[n.first[0]][c] |= 1 << k
			}
			continue
		}
		t[n.first[0]][n.first[1]] |= 1 << k
	}
	return &t
}

// pairsOf is the built table of a name list, or nil for any other list.
func pairsOf(names []kvName) *pairTable {
	switch {
	case len(names) > 0 && &names[0] == &kvNames[0]:
		return kvPairs
	case len(names) > 0 && &names[0] == &piiNames[0]:
		return piiPairs
	}
	return nil
}

// lowerASCII folds an ASCII upper-case letter to lower case.
func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// piiNames are account and identity keys cockpit also scrubs from free text before storage
// (the reference's text pass covers only credentials).
var piiNames = []kvName{
	{"bank_account", "number"}, {"brokerage_account", "number"}, {"brokerage_account", "id"},
	{"account", "number"}, {"account", "num"}, {"account", "no"}, {"account", "id"},
	{"routing", "number"}, {"social_security", "number"}, {"taxpayer", "id"}, {"tax", "id"}, {"ssn", ""},
}

// Secrets is Text plus cockpit's passes: the registered secret values (scrubbed
// first, whatever surrounds them), account and identity numbers in key=value text,
// environment-style credential assignments and URL user-info. It is what the audit store,
// the log and the console apply.
func Secrets(s string) string {
	if s == "" {
		return s
	}
	s = Text(scrubValues(s))
	s = redactNamedValues(s, piiNames, "abrst")
	return redactAuthCredentials(redactPEMKeys(redactURLUserinfo(redactEnvAssignments(s))))
}

// candidateBytes marks the bytes at which matchKeyValue can succeed: the quotes, the
// letters of firsts in both cases, and every non-ASCII byte (İ, ı, K and ſ fold to ASCII).
func candidateBytes(firsts string) (t [256]bool) {
	t['"'], t['\''] = true, true
	for i := 0; i < len(firsts); i++ {
		c := firsts[i]
		t[c], t[c-'a'+'A'] = true, true
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] = true
	}
	return t
}

// wordBoundary is pystr.WordBoundary with a table lookup when both neighbours are ASCII.
func wordBoundary(s string, i int) bool {
	if i < len(s) && s[i] < utf8.RuneSelf && (i == 0 || s[i-1] < utf8.RuneSelf) {
		return (i > 0 && asciiWordByte[s[i-1]]) != asciiWordByte[s[i]]
	}
	return pystr.WordBoundary(s, i)
}

// asciiWordByte marks the ASCII word characters [A-Za-z0-9_].
var asciiWordByte = func() (t [256]bool) {
	for c := 0; c < utf8.RuneSelf; c++ {
		t[c] = pystr.IsWord(rune(c))
	}
	return t
}()

func redactNamedValues(s string, names []kvName, firsts string) string {
	if out, ok := appendNamedValues(nil, s, names, firsts); ok {
		return bytesString(out)
	}
	return s
}

// appendNamedValues appends the key=value pass's output to dst, or reports that it changes
// nothing (dst is then returned as it was).
func appendNamedValues(dst []byte, s string, names []kvName, firsts string) ([]byte, bool) {
	matched := false
	last := 0
	cand := &kvCand
	if firsts != "aipbrsct" {
		cand = &piiCand
		if firsts != "abrst" {
			t := candidateBytes(firsts)
			cand = &t
		}
	}
	pairs := pairsOf(names)
	for p := 0; p < len(s); {
		if c := s[p]; !cand[c] || c < utf8.RuneSelf && c != '"' && c != '\'' && p > 0 && asciiWordByte[s[p-1]] {
			// An ASCII byte that is neither a quote nor a name's first letter, or a letter
			// after a word character (no \b before the name; a non-word rune folds to no letter).
			// After a word byte, so is every ASCII word byte that follows it.
			p = skipWord(s, p, c)
			continue
		}
		c, size := s[p], 1
		if c >= utf8.RuneSelf {
			_, size = utf8.DecodeRuneInString(s[p:])
		}
		if m, ok := matchKeyValue(s, p, names, firsts, pairs); ok {
			if !matched {
				dst, matched = growFor(dst, len(s)), true
			}
			// The replacement keeps the key, its quotes and the separator (s[p:m.v]) and
			// puts Redacted, in the value's quotes if it had them, in place of the value.
			dst = append(dst, s[last:m.v]...)
			if m.vq != 0 {
				dst = append(dst, m.vq)
			}
			dst = append(dst, Redacted...)
			if m.vq != 0 {
				dst = append(dst, m.vq)
			}
			last = m.end
			p = m.end
			continue
		}
		if size == 1 {
			p = skipWord(s, p, c)
		} else {
			p += size
		}
	}
	if !matched {
		return dst, false
	}
	return append(dst, s[last:]...), true
}

// kvMatch is a key=value match at p: the text from p to v (the key, its quotes and the
// separator) is kept, the value from v to end becomes Redacted, quoted with vq if nonzero.
type kvMatch struct {
	v, end int
	vq     byte
}

// skipWord returns the offset after the ASCII byte c at p and, when c is a word byte, after
// the run of ASCII word bytes that follows it.
func skipWord(s string, p int, c byte) int {
	p++
	if asciiWordByte[c] {
		for p < len(s) && asciiWordByte[s[p]] {
			p++
		}
	}
	return p
}

// matchKeyValue tries the key=value pattern at byte offset p, backtracking like Python's re.
// firsts holds the first letters of the names and pairs (nil: none) their first two, to
// skip positions quickly.
func matchKeyValue(s string, p int, names []kvName, firsts string, pairs *pairTable) (kvMatch, bool) {
	var q byte
	start := p
	if s[p] == '"' || s[p] == '\'' {
		q = s[p]
		start = p + 1
	}
	if pairs != nil && start+1 < len(s) {
		if c0, c1 := s[start], s[start+1]; c0 < utf8.RuneSelf && c1 < utf8.RuneSelf {
			set := pairs[lowerASCII(c0)][lowerASCII(c1)]
			if set == 0 {
				return kvMatch{}, false // no name starts with these two ASCII letters
			}
			// Two ASCII bytes fold only to themselves: the names of set, in the list's
			// order, are the only ones that can match.
			if q == 0 && !wordBoundary(s, start) {
				return kvMatch{}, false
			}
			for ; set != 0; set &= set - 1 {
				if m, ok := names[bits.TrailingZeros32(set)].tryAt(s, start, q); ok {
					return m, true
				}
			}
			return kvMatch{}, false
		}
	}
	// \b before the name: the name starts with a letter, so the previous rune must not be a
	// word character (a quote never is).
	if q == 0 && !wordBoundary(s, start) {
		return kvMatch{}, false
	}
	first, _ := pystr.RuneAt(s, start)
	if first < 0 || !strings.ContainsRune(firsts, pystr.FoldASCII(first)) {
		return kvMatch{}, false
	}
	f0 := byte(pystr.FoldASCII(first))
	for _, name := range names {
		if name.first[0] != f0 {
			continue // cannot match: every name is lower-case ASCII
		}
		if m, ok := name.tryAt(s, start, q); ok {
			return m, true
		}
	}
	return kvMatch{}, false
}

// tryAt tries the rest of the pattern after name k at start, each way the name can end.
func (k kvName) tryAt(s string, start int, q byte) (kvMatch, bool) {
	ends, n := k.match(s, start)
	for _, nameEnd := range ends[:n] {
		if m, ok := kvTail(s, nameEnd, q); ok {
			return m, true
		}
	}
	return kvMatch{}, false
}

// match returns the possible ends of the name at start, greedy option first (n of them).
func (k kvName) match(s string, start int) (ends [2]int, n int) {
	a, ok := hasFoldPrefix(s[start:], k.first)
	if !ok {
		return ends, 0
	}
	pos := start + a
	if k.second == "" {
		ends[0] = pos
		return ends, 1
	}
	if pos < len(s) && (s[pos] == '_' || s[pos] == '-') {
		if c, ok := hasFoldPrefix(s[pos+1:], k.second); ok {
			ends[n] = pos + 1 + c
			n++
		}
	}
	if c, ok := hasFoldPrefix(s[pos:], k.second); ok {
		ends[n] = pos + c
		n++
	}
	return ends, n
}

// hasFoldPrefix is pystr.HasFoldPrefix comparing ASCII bytes in place: an ASCII byte folds
// only to its lower case. From the first non-ASCII byte on, pystr compares the rest.
func hasFoldPrefix(s, w string) (int, bool) {
	for j := 0; j < len(w); j++ {
		if j >= len(s) {
			return 0, false
		}
		c := s[j]
		if c >= utf8.RuneSelf {
			n, ok := pystr.HasFoldPrefix(s[j:], w[j:])
			return j + n, ok
		}
		if lowerASCII(c) != w[j] {
			return 0, false
		}
	}
	return len(w), true
}

// kvTail matches \b (?P=q) \s*[:=]\s* (?!…) value after a name ending at nameEnd (q: the
// key's opening quote, 0 for none).
func kvTail(s string, nameEnd int, q byte) (kvMatch, bool) {
	if !wordBoundary(s, nameEnd) {
		return kvMatch{}, false
	}
	i := nameEnd
	if q != 0 {
		if i >= len(s) || s[i] != q {
			return kvMatch{}, false
		}
		i++
	}
	i = skipSpace(s, i)
	if i >= len(s) || (s[i] != ':' && s[i] != '=') {
		return kvMatch{}, false
	}
	i = skipSpace(s, i+1)
	v := i
	// A shorter trailing whitespace run would leave the value starting on whitespace, which
	// no value alternative accepts, so the greedy run is the only candidate.
	if kvLookaheadRejects(s, v) {
		return kvMatch{}, false
	}
	vEnd, vq, ok := kvValue(s, v)
	if !ok {
		return kvMatch{}, false
	}
	return kvMatch{v: v, end: vEnd, vq: vq}, true
}

func skipSpace(s string, i int) int {
	for {
		r, size := pystr.RuneAt(s, i)
		if size == 0 || !pystr.IsSpace(r) {
			return i
		}
		i += size
	}
}

// kvLookaheadRejects is (?=[\"']?\[redacted\][\"']?|bearer\b), case-insensitive.
func kvLookaheadRejects(s string, v int) bool {
	rest := s[v:]
	if _, ok := hasFoldPrefix(rest, Redacted); ok {
		return true
	}
	if rest != "" && (rest[0] == '"' || rest[0] == '\'') {
		if _, ok := hasFoldPrefix(rest[1:], Redacted); ok {
			return true
		}
	}
	if n, ok := hasFoldPrefix(rest, "bearer"); ok && pystr.WordBoundary(s, v+n) {
		return true
	}
	return false
}

// kvValue is "[^"\n]*" | '[^'\n]*' | [^\s,;{}\[\]()"']+ ; it returns the end and the quote
// (0 for none).
func kvValue(s string, v int) (int, byte, bool) {
	if v >= len(s) {
		return 0, 0, false
	}
	if c := s[v]; c == '"' || c == '\'' {
		// The closing quote, unless a line ends first. The search for it runs on to the end
		// of s only when s[v] is the last c in s, so repeated calls stay linear.
		k := strings.IndexByte(s[v+1:], c)
		if k < 0 || strings.IndexByte(s[v+1:v+1+k], '\n') >= 0 {
			return 0, 0, false
		}
		return v + 1 + k + 1, c, true
	}
	j := v
	for j < len(s) {
		if c := s[j]; c < utf8.RuneSelf {
			if kvValueStopASCII[c] {
				break
			}
			j++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[j:])
		if pystr.IsSpace(r) {
			break
		}
		j += size
	}
	if j == v {
		return 0, 0, false
	}
	return j, 0, true
}

// kvValueStopASCII marks the ASCII bytes an unquoted value stops at: \s and ,;{}[]()"'.
var kvValueStopASCII = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = pystr.IsSpace(rune(c)) || strings.IndexByte(",;{}[]()\"'", byte(c)) >= 0
	}
	return t
}()

// ---- pass 3: bare issuer tokens (case-sensitive, ASCII neighbour guards)

func tokenClass(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func alnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }

func redactTokens(s string) string {
	r, _ := tokensPass(s)
	return r
}

// tokensPass is redactTokens; changed reports a match (otherwise r is s).
func tokensPass(s string) (r string, changed bool) {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if !tokenFirst[s[i]] || i > 0 && tokenClass(s[i-1]) {
			i = skipTokenRun(s, i)
			continue
		}
		end := matchToken(s, i)
		if end < 0 {
			i = skipTokenRun(s, i)
			continue
		}
		if last == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:i])
		b.WriteString(Redacted)
		last = end
		i = end - 1
	}
	if last == 0 {
		return s, false
	}
	b.WriteString(s[last:])
	return b.String(), true
}

// skipTokenRun returns i, or, when s[i] is a token byte, the last offset of the run of token
// bytes it starts: none of the others can start a token (each follows a token byte).
func skipTokenRun(s string, i int) int {
	if !tokenByte[s[i]] {
		return i
	}
	for i+1 < len(s) && tokenByte[s[i+1]] {
		i++
	}
	return i
}

// tokenByte is tokenClass as a table.
var tokenByte = func() (t [256]bool) {
	for c := range t {
		t[c] = tokenClass(byte(c))
	}
	return t
}()

// tokenFirst marks the bytes a bare token can start with (sk-, gh?_, xox?-, AKIA, pypi-, eyJ).
var tokenFirst = func() (t [256]bool) {
	for _, c := range []byte("sgxApe") {
		t[c] = true
	}
	return t
}()

// runOf returns the end of the longest run at i of bytes accepted by class.
func runOf(s string, i int, class func(byte) bool) int {
	for i < len(s) && class(s[i]) {
		i++
	}
	return i
}

// matchToken returns the end of a bare token starting at i, or -1.
func matchToken(s string, i int) int {
	rest := s[i:]
	guardOK := func(end int) int {
		if end < len(s) && tokenClass(s[end]) {
			return -1
		}
		return end
	}
	switch {
	case strings.HasPrefix(rest, "sk-"):
		if e := runOf(s, i+3, tokenClass); e-(i+3) >= 20 {
			return guardOK(e)
		}
	case len(rest) >= 4 && rest[0] == 'g' && rest[1] == 'h' && strings.IndexByte("pousr", rest[2]) >= 0 && rest[3] == '_':
		if e := runOf(s, i+4, alnum); e-(i+4) >= 30 {
			return guardOK(e)
		}
	case len(rest) >= 5 && strings.HasPrefix(rest, "xox") && strings.IndexByte("baprs", rest[3]) >= 0 && rest[4] == '-':
		if e := runOf(s, i+5, func(c byte) bool { return alnum(c) || c == '-' }); e-(i+5) >= 10 {
			return guardOK(e)
		}
	case strings.HasPrefix(rest, "AKIA"):
		upperDigit := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' }
		if len(rest) >= 20 && runOf(rest[:20], 4, upperDigit) == 20 {
			return guardOK(i + 20)
		}
	case strings.HasPrefix(rest, "pypi-"):
		if e := runOf(s, i+5, tokenClass); e-(i+5) >= 16 {
			return guardOK(e)
		}
	case strings.HasPrefix(rest, "eyJ"):
		e1 := runOf(s, i+3, tokenClass)
		if e1-(i+3) < 10 || e1 >= len(s) || s[e1] != '.' {
			return -1
		}
		e2 := runOf(s, e1+1, tokenClass)
		if e2-(e1+1) < 10 || e2 >= len(s) || s[e2] != '.' {
			return -1
		}
		if e3 := runOf(s, e2+1, tokenClass); e3-(e2+1) >= 5 {
			return guardOK(e3)
		}
	}
	return -1
}
