// Package scan is cockpit's prompt-injection scanner for outside content: the reference's five
// keyword rules with Python's Unicode \b, \s and IGNORECASE semantics, reproduced by a
// hand-written matcher over runes instead of Go's regexp (whose \b and \s are ASCII and whose
// (?i) does not fold İ and ı). One pass finds every candidate word; each rule's leftmost match
// and its greedy span then come from the word positions, so the cost is linear in the input
// whatever it holds. It also defangs chat-template control tokens and applies both to selected
// fields of a tool result (with_security_warnings).
package scan

import (
	"strings"
	"sync"
	"unicode/utf8"

	"cockpit/live/pystr"
)

// Rule is one of the five rules.
type Rule struct {
	ID       string
	Severity string
	Message  string
}

// Rules are the reference's rules in their fixed order.
var Rules = [5]Rule{
	{"instruction_override", "high", "External content appears to request overriding prior instructions."},
	{"system_prompt_exfiltration", "high", "External content appears to request hidden prompt or instruction disclosure."},
	{"role_or_channel_claim", "medium", "External content appears to impersonate a privileged role or channel."},
	{"secret_exfiltration", "high", "External content appears to request secret or environment disclosure."},
	{"tool_abuse", "medium", "External content appears to instruct tool or shell execution."},
}

// Finding is one rule's first match in a string.
type Finding struct {
	RuleID   string
	Severity string
	Message  string
	Match    string // whitespace-collapsed, at most 120 code points
	Field    string // the field path, when scanning a payload
	InField  bool   // a field path was given (it may be "", the empty key)
}

// Word groups. A vocabulary form may belong to several groups.
const (
	gOverrideVerb = 1 << iota // rule 1: ignore, disregard, …
	gOverrideWhat             // rule 1: previous, prior, …
	gOverrideObj              // rule 1: instructions?, rules?, messages?, prompt
	gRevealVerb               // rule 2: reveal, print, …
	gRevealWhat               // rule 2: system, developer, hidden
	gRevealObj                // rule 2: prompt, instructions?, rules?, message
	gRoleHead                 // rule 3a: system, developer (then \s+ message)
	gYouAreNow                // rule 3b: the phrase
	gRoleWord                 // rule 3b: system, developer, admin, root
	gSecretVerb               // rule 4: print, show, dump, send, exfiltrate, leak
	gSecretWhat               // rule 4: api keys, tokens, passwords, secrets, env vars
	gToolVerb                 // rule 5: call, run, execute, use
	gToolWhat                 // rule 5: shell, bash, terminal, python, curl
	nGroups       = iota
)

// form is one spelling the rules accept, lower-case ASCII; a letter matches its Python
// IGNORECASE equivalents, any other byte matches itself.
type form struct {
	text   string
	groups uint32
}

var forms = buildForms()

func buildForms() []form {
	add := func(out []form, g uint32, words ...string) []form {
		for _, w := range words {
			found := false
			for i := range out {
				if out[i].text == w {
					out[i].groups |= g
					found = true
				}
			}
			if !found {
				out = append(out, form{w, g})
			}
		}
		return out
	}
	var f []form
	f = add(f, gOverrideVerb, "ignore", "disregard", "forget", "bypass", "override")
	f = add(f, gOverrideWhat, "previous", "prior", "above", "earlier", "system", "developer")
	f = add(f, gOverrideObj, "instruction", "instructions", "rule", "rules", "message", "messages", "prompt")
	f = add(f, gRevealVerb, "reveal", "print", "show", "dump", "leak", "exfiltrate")
	f = add(f, gRevealWhat, "system", "developer", "hidden")
	f = add(f, gRevealObj, "prompt", "instruction", "instructions", "rule", "rules", "message")
	f = add(f, gRoleHead, "system", "developer")
	f = add(f, gYouAreNow, "you are now")
	f = add(f, gRoleWord, "system", "developer", "admin", "root")
	f = add(f, gSecretVerb, "print", "show", "dump", "send", "exfiltrate", "leak")
	for _, sep := range []string{"", "_", " ", "-"} {
		f = add(f, gSecretWhat, "api"+sep+"key", "api"+sep+"keys")
	}
	f = add(f, gSecretWhat, "token", "tokens", "password", "passwords", "secret", "secrets",
		"env var", "env vars", "environment var", "environment vars")
	f = add(f, gToolVerb, "call", "run", "execute", "use")
	f = add(f, gToolWhat, "shell", "bash", "terminal", "python", "curl")
	return f
}

// The forms are matched with a trie over folded bytes: a–z, then ' ', '_' and '-'.
const trieWidth = 29

func trieIndex(r rune) int {
	switch {
	case r >= 'a' && r <= 'z':
		return int(r - 'a')
	case r == ' ':
		return 26
	case r == '_':
		return 27
	case r == '-':
		return 28
	}
	return -1
}

type trie struct {
	next  [][trieWidth]int16 // 0 = no edge
	final []int16            // form index + 1 at a node that ends a form
}

var vocab = func() *trie {
	t := &trie{next: make([][trieWidth]int16, 1), final: make([]int16, 1)}
	for fi, f := range forms {
		n := 0
		for k := 0; k < len(f.text); k++ {
			c := trieIndex(rune(f.text[k]))
			if t.next[n][c] == 0 {
				t.next = append(t.next, [trieWidth]int16{})
				t.final = append(t.final, 0)
				t.next[n][c] = int16(len(t.next) - 1)
			}
			n = int(t.next[n][c])
		}
		t.final[n] = int16(fi + 1)
	}
	return t
}()

// startsForm marks the folded first letters of the forms.
var startsForm = func() (t [128]bool) {
	for _, f := range forms {
		t[f.text[0]] = true
	}
	return t
}()

// asciiWord marks ASCII word characters (letters, digits, underscore).
var asciiWord = func() (t [128]bool) {
	for c := 0; c < 128; c++ {
		t[c] = pystr.IsWord(rune(c))
	}
	return t
}()

// hit is a vocabulary word found at a word start, with its boundary after it checked.
type hit struct {
	sr, er int32 // start and end, in code points
	sb, eb int32 // start and end, in bytes
	form   int16
}

// maxForm is the longest form in code points ("environment vars"); it bounds how far past a
// word's start its end can lie.
const maxForm = 16

// scanner finds the rules' first matches in one forward pass over the text, stopping early
// once every rule's leftmost match is decided: a match that starts at a verb depends only on
// the words that start within the verb's window (its gaps plus the longest form).
type scanner struct {
	s        string
	i, ri    int // next byte and code point to read
	prevWord bool
	by       [nGroups][]hit
	next     [5]int // per rule: the first verb not yet rejected
	done     [5]bool
	found    [5]bool
	span     [5][2]int
	roleA    int  // rule 3a: next head to check
	roleAAt  int  // rule 3a: the first matching head's start byte, when roleAOK
	roleAEnd int  // … and its end
	roleAOK  bool //
}

// advance reads hits up to byte offset until (or the end of the text). The position lives
// in locals while the loop runs: this is the scanner's hot path.
func (sc *scanner) advance(until int) {
	s := sc.s
	if until > len(s) {
		until = len(s)
	}
	i, ri, prevWord := sc.i, sc.ri, sc.prevWord
	for i < until {
		c := s[i]
		if c < utf8.RuneSelf {
			word := asciiWord[c]
			if word && !prevWord && startsForm[lowerASCII[c]] {
				sc.add(i, ri)
			}
			prevWord = word
			i++
			ri++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		word := pystr.IsWord(r)
		if word && !prevWord {
			if f := pystr.FoldASCII(r); f < utf8.RuneSelf && startsForm[f] {
				sc.add(i, ri)
			}
		}
		prevWord = word
		i += size
		ri++
	}
	sc.i, sc.ri, sc.prevWord = i, ri, prevWord
}

// add records the vocabulary word at byte offset i, if any, in each of its groups.
func (sc *scanner) add(i, ri int) {
	h, ok := matchAt(sc.s, i, ri)
	if !ok {
		return
	}
	for gs, g := forms[h.form].groups, 0; gs != 0; gs, g = gs>>1, g+1 {
		if gs&1 != 0 && !sc.done[groupRule[g]] {
			sc.by[g] = append(sc.by[g], h)
		}
	}
}

// lowerASCII folds ASCII upper case.
var lowerASCII = func() (t [128]byte) {
	for c := 0; c < 128; c++ {
		t[c] = byte(pystr.FoldASCII(rune(c)))
	}
	return t
}()

// decided reports whether every rule's first match is known.
func (sc *scanner) decided() bool {
	for _, d := range sc.done {
		if !d {
			return false
		}
	}
	return true
}

// resolve decides what it can with the words read so far; final means the text has ended.
func (sc *scanner) resolve(final bool) {
	limit := sc.ri // every word starting before limit is known
	g := func(flag int) []hit { return sc.by[bitIndex(flag)] }
	chains := []struct {
		rule               int
		verbs, whats, objs []hit
		g1, g2             int
		three              bool
	}{
		{0, g(gOverrideVerb), g(gOverrideWhat), g(gOverrideObj), 80, 40, true},
		{1, g(gRevealVerb), g(gRevealWhat), g(gRevealObj), 80, 40, true},
		{3, g(gSecretVerb), g(gSecretWhat), nil, 80, 0, false},
		{4, g(gToolVerb), g(gToolWhat), nil, 80, 0, false},
	}
	for _, c := range chains {
		if sc.done[c.rule] {
			continue
		}
		a, b, found, next, decided := chainFrom(c.verbs, c.whats, c.objs, sc.next[c.rule], c.g1, c.g2, c.three, limit, final)
		sc.next[c.rule] = next
		if decided {
			sc.done[c.rule], sc.found[c.rule], sc.span[c.rule] = true, found, [2]int{a, b}
		}
	}
	if !sc.done[2] {
		sc.resolveRole(limit, final)
	}
}

// resolveRole decides rule 3: "system|developer" \s+ "message" \b, or "you are now" then a
// privileged role word within 50 code points — whichever starts first.
func (sc *scanner) resolveRole(limit int, final bool) {
	heads := sc.by[bitIndex(gRoleHead)]
	for !sc.roleAOK && sc.roleA < len(heads) {
		h := heads[sc.roleA]
		if end, ok := roleMessage(sc.s, int(h.eb)); ok {
			sc.roleAOK, sc.roleAAt, sc.roleAEnd = true, int(h.sb), end
			break
		}
		sc.roleA++
	}
	bStart, bEnd, bFound, next, bDecided := chainFrom(sc.by[bitIndex(gYouAreNow)], sc.by[bitIndex(gRoleWord)], nil,
		sc.next[2], 50, 0, false, limit, final)
	sc.next[2] = next
	switch {
	case bFound && (!sc.roleAOK || bStart < sc.roleAAt):
		// Every head before bStart was read (bStart is), and none matched before it.
		sc.done[2], sc.found[2], sc.span[2] = true, true, [2]int{bStart, bEnd}
	case sc.roleAOK && (bDecided || sc.phraseStartAfter(next, sc.roleAAt)):
		sc.done[2], sc.found[2], sc.span[2] = true, true, [2]int{sc.roleAAt, sc.roleAEnd}
	case bDecided && final:
		sc.done[2] = true
	}
}

// phraseStartAfter reports whether the undecided "you are now" at index k starts after byte
// offset at (so it cannot beat a match that starts there).
func (sc *scanner) phraseStartAfter(k, at int) bool {
	ph := sc.by[bitIndex(gYouAreNow)]
	if k < len(ph) {
		return int(ph[k].sb) > at
	}
	return sc.i > at // the next phrase, if any, starts after what was read
}

// roleMessage checks \s+ "message" \b from byte offset j.
func roleMessage(s string, j int) (int, bool) {
	spaces := 0
	for j < len(s) {
		r, size := pystr.RuneAt(s, j)
		if !pystr.IsSpace(r) {
			break
		}
		j += size
		spaces++
	}
	if spaces == 0 {
		return 0, false
	}
	n, ok := pystr.HasFoldPrefix(s[j:], "message")
	if !ok {
		return 0, false
	}
	if next, _ := pystr.RuneAt(s, j+n); next >= 0 && pystr.IsWord(next) {
		return 0, false
	}
	return j + n, true
}

// matchAt walks the vocabulary trie from byte offset i (a word start) with folded code
// points; a form matches when its last byte is reached and the next code point is not a word
// character. At most one form can match: a longer form of the same word continues with a
// word character.
func matchAt(s string, i, ri int) (hit, bool) {
	t := vocab
	node, j, n := 0, i, 0
	found := hit{}
	ok := false
	for j < len(s) {
		var c, size int
		if b := s[j]; b < utf8.RuneSelf {
			c, size = int(asciiTrie[b]), 1
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(s[j:])
			c = trieIndex(pystr.FoldASCII(r))
			if c >= 26 {
				c = -1 // a folded letter never becomes punctuation
			}
		}
		if c < 0 || t.next[node][c] == 0 {
			break
		}
		node = int(t.next[node][c])
		j += size
		n++
		if f := t.final[node]; f != 0 {
			if !wordAt(s, j) {
				found, ok = hit{form: f - 1, sr: int32(ri), er: int32(ri + n), sb: int32(i), eb: int32(j)}, true
			}
		}
	}
	return found, ok
}

// asciiTrie is trieIndex of each ASCII byte after folding (-1 when it has no edge).
var asciiTrie = func() (t [utf8.RuneSelf]int8) {
	for c := range t {
		t[c] = int8(trieIndex(pystr.FoldASCII(rune(c))))
	}
	return t
}()

// wordAt reports whether a word character starts at byte offset j of s.
func wordAt(s string, j int) bool {
	if j >= len(s) {
		return false
	}
	if b := s[j]; b < utf8.RuneSelf {
		return asciiWord[b]
	}
	r, _ := utf8.DecodeRuneInString(s[j:])
	return pystr.IsWord(r)
}

// lastStartIn returns the last hit of hs whose start lies in [lo, hi] (code points).
func lastStartIn(hs []hit, lo, hi int) (hit, bool) {
	a := upper(hs, hi)
	if a == 0 || int(hs[a-1].sr) < lo {
		return hit{}, false
	}
	return hs[a-1], true
}

// upper returns the number of hits that start at or before hi (hs is sorted by start).
func upper(hs []hit, hi int) int {
	a, b := 0, len(hs)
	for a < b {
		m := (a + b) / 2
		if int(hs[m].sr) <= hi {
			a = m + 1
		} else {
			b = m
		}
	}
	return a
}

// chainFrom finds the leftmost match of "verb, gap ≤ g1, what[, gap ≤ g2, object]" with the
// greedy spans of a backtracking engine — for the leftmost verb that can complete, the last
// "what" that still can, then the last object — starting at verbs[k]. A verb is decided only
// when every word that could complete it has been read (it starts before limit), unless the
// text has ended (final). It returns the byte span when found, the next verb to try, and
// whether the rule is decided.
func chainFrom(verbs, whats, objs []hit, k, g1, g2 int, three bool, limit int, final bool) (int, int, bool, int, bool) {
	reach := g1 + maxForm + 1
	if three {
		reach += g2 + maxForm
	}
	for ; k < len(verbs); k++ {
		v := verbs[k]
		ver := int(v.er)
		if !final && ver+reach >= limit {
			return 0, 0, false, k, false
		}
		for j := upper(whats, ver+g1) - 1; j >= 0 && int(whats[j].sr) >= ver; j-- {
			w := whats[j]
			if !three {
				return int(v.sb), int(w.eb), true, k, true
			}
			if o, ok := lastStartIn(objs, int(w.er), int(w.er)+g2); ok {
				return int(v.sb), int(o.eb), true, k, true
			}
		}
	}
	return 0, 0, false, k, final
}

func bitIndex(g int) int {
	n := 0
	for g > 1 {
		g >>= 1
		n++
	}
	return n
}

// pool keeps scanners (and their hit slices) between calls.
var pool = sync.Pool{New: func() any { return new(scanner) }}

// release resets the scanner, keeping its slices' capacity, and returns it to the pool.
func (sc *scanner) release() {
	by := sc.by
	for g := range by {
		by[g] = by[g][:0]
	}
	*sc = scanner{by: by}
	pool.Put(sc)
}

// chunk is how much text is read between attempts to decide the rules.
const chunk = 8 << 10

// maxScan bounds the text one call scans (positions are 32-bit); callers cap tool output
// far below it.
const maxScan = 1<<31 - 1

// run reads the text chunk by chunk until every rule is decided.
func (sc *scanner) run() {
	for sc.i < len(sc.s) && !sc.decided() {
		sc.advance(sc.i + chunk)
		sc.resolve(sc.i >= len(sc.s))
		sc.compact()
	}
}

// Scan returns the findings of the five rules on s, in rule order, at most one per rule.
func Scan(s string) []Finding {
	if s == "" {
		return nil
	}
	if len(s) > maxScan {
		cut := maxScan
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	sc := pool.Get().(*scanner)
	defer sc.release()
	sc.s = s
	sc.run()
	var out []Finding
	for i, ok := range sc.found {
		if ok {
			r := Rules[i]
			out = append(out, Finding{RuleID: r.ID, Severity: r.Severity, Message: r.Message, Match: excerpt(s[sc.span[i][0]:sc.span[i][1]])})
		}
	}
	return out
}

// excerpt collapses whitespace runs (Python's str.split) and caps the text at 120 code points
// (117 and "...").
func excerpt(m string) string {
	e := strings.Join(strings.FieldsFunc(m, pystr.IsSpace), " ")
	if utf8.RuneCountInString(e) <= 120 {
		return e
	}
	n := 0
	for i := range e {
		if n == 117 {
			return e[:i] + "..."
		}
		n++
	}
	return e
}
