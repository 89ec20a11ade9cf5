package scan

import (
	"strings"
	"unicode/utf8"
)

const zwsp = "\u200b"

// Neutralize defangs chat-template control tokens: after the first character of every
// `<|name|>` (ASCII or fullwidth bars, 0–64 inner characters of [A-Za-z0-9_▁]), `<<SYS>>`,
// `<</SYS>>`, `[INST]`, `[/INST]`, `<s>`, `</s>` and the Gemma tags it inserts one U+200B,
// scanning left to right without overlaps as Python's re.sub does. Nothing is removed; a
// second pass changes nothing. It reports whether anything changed (when not, s is returned).
func Neutralize(s string) (string, bool) {
	o := opener{s: s, lt: -1, br: -1}
	i := o.next(0)
	if i < 0 {
		return s, false
	}
	var b strings.Builder
	last := 0
	for i >= 0 {
		if n := tokenAt(s, i); n > 0 {
			if b.Len() == 0 {
				b.Grow(len(s) + 64)
			}
			b.WriteString(s[last : i+1])
			b.WriteString(zwsp)
			last = i + 1
			i = o.next(i + n)
			continue
		}
		i = o.next(i + 1)
	}
	if last == 0 {
		return s, false
	}
	b.WriteString(s[last:])
	return b.String(), true
}

// opener finds the next '<' or '[': a short byte loop, then IndexByte searches that remember
// the next occurrence of each byte (len(s) when there is none), so no byte is searched twice.
type opener struct {
	s      string
	lt, br int // next '<' and '[' found so far (-1: not searched yet)
}

// openerNear is how many bytes next checks one by one before it searches: tokens are often
// close together, and a short loop beats two IndexByte calls there.
const openerNear = 16

// next returns the next '<' or '[' at or after i, or -1.
func (o *opener) next(i int) int {
	s := o.s
	end := min(i+openerNear, len(s))
	for ; i < end; i++ {
		if c := s[i]; c == '<' || c == '[' {
			return i
		}
	}
	if i >= len(s) {
		return -1
	}
	if o.lt < i {
		o.lt = indexFrom(o.s, i, '<')
	}
	if o.br < i {
		o.br = indexFrom(o.s, i, '[')
	}
	if j := min(o.lt, o.br); j < len(o.s) {
		return j
	}
	return -1
}

// indexFrom is the offset of the first c at or after i, or len(s).
func indexFrom(s string, i int, c byte) int {
	if i >= len(s) {
		return len(s)
	}
	if k := strings.IndexByte(s[i:], c); k >= 0 {
		return i + k
	}
	return len(s)
}

const fullBar = "｜" // U+FF5C

// bar returns the byte length of an ASCII or fullwidth bar at i, or 0.
func bar(s string, i int) int {
	switch {
	case i < len(s) && s[i] == '|':
		return 1
	case strings.HasPrefix(s[i:], fullBar):
		return len(fullBar)
	}
	return 0
}

// tokenAt returns the byte length of the control token starting at i, or 0. The
// alternatives are tried in the reference pattern's order.
func tokenAt(s string, i int) int {
	rest := s[i:]
	if rest[0] == '[' {
		for _, t := range []string{"[INST]", "[/INST]"} {
			if strings.HasPrefix(rest, t) {
				return len(t)
			}
		}
		return 0
	}
	if n := bar(s, i+1); n > 0 {
		j := i + 1 + n
		for k := 0; k <= 64; k++ {
			if m := bar(s, j); m > 0 && j+m < len(s) && s[j+m] == '>' {
				return j + m + 1 - i
			}
			if k == 64 || j >= len(s) {
				break
			}
			r, size := utf8.DecodeRuneInString(s[j:])
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '▁') {
				break
			}
			j += size
		}
	}
	for _, t := range []string{"<<SYS>>", "<</SYS>>", "<s>", "</s>", "<start_of_turn>", "<end_of_turn>", "<bos>", "<eos>", "<pad>"} {
		if strings.HasPrefix(rest, t) {
			return len(t)
		}
	}
	return 0
}
