package jsonv

// The plain subset of JSON, for readers that see many similar documents (a `check --batch`
// file): ASCII strings without escapes, ordinary numbers of at most PlainMaxNumber bytes, no
// repeated names in an object, nesting up to PlainMaxDepth. Plain.Members checks a document's
// syntax without building values and hands back the text of the top-level members it was
// asked for; anything outside the subset (an escape, a non-ASCII byte, NaN/Infinity, a
// repeated name, a long number, deep nesting, a syntax error) is "not plain", never an answer
// about the document: the caller then parses it strictly. A plain document parses strictly,
// with RejectDuplicates, to the values PlainValue gives for its members.

import (
	"slices"
	"strings"
)

const (
	// PlainMaxDepth is the deepest nesting a plain document has.
	PlainMaxDepth = 16
	// PlainMaxNumber is the longest number text a plain document has.
	PlainMaxNumber = 40
)

// Plain scans plain documents; it keeps its scratch space between documents. One goroutine
// uses a Plain at a time.
type Plain struct {
	keys []string // the open objects' names, for repeated-name detection
	// last[i] is the object or list Members last handed back for names[i] (a batch repeats
	// its mandates line after line). A member whose text starts with it is that same value:
	// the scan of an object or a list stops at its closing bracket whatever follows, so the
	// scan would take exactly those bytes again, and Members skips them.
	last []string
	// seen holds copies of object and list texts a scan took as the value of a member asked
	// for (a batch's mandates come back, though not always line after line): see seenAt.
	seen plainSeen
}

// Members reports whether s is one plain JSON object and, when it is, sets spans[i] to the
// text of its member named names[i] and found[i] to whether there is one. spans and found
// must be at least len(names) long.
func (pl *Plain) Members(s string, names []string, spans []string, found []bool) bool {
	return pl.MembersNested(s, names, spans, found, nil)
}

// Nested asks MembersNested, in the same scan, for the members of one member's object.
type Nested struct {
	Of    int      // the member (an index into names) whose object is asked about
	Names []string // the names asked for in that object
	Spans []string // set as Members of the object's text sets spans, at least len(Names) long
	Found []bool   // set as Members of the object's text sets found, at least len(Names) long
	// Object is set when the member is there and is an object; Spans and Found are then its.
	Object bool
}

// MembersNested is Members that also fills in sub (when not nil): when s is plain and its
// member names[sub.Of] is an object, sub.Spans and sub.Found are what Members of that
// object's text gives for sub.Names (the object, inside s, is plain whenever s is), and
// sub.Object is true.
func (pl *Plain) MembersNested(s string, names []string, spans []string, found []bool, sub *Nested) bool {
	of := -1
	if sub != nil {
		of = sub.Of
		sub.Object = false
		clear(sub.Found[:len(sub.Names)])
	}
	sc := plainScanner{s: s, keys: pl.keys[:0]}
	defer func() { pl.keys = sc.keys[:0] }()
	if len(pl.last) < len(names) {
		pl.last = make([]string, len(names))
	}
	sc.space()
	if sc.pos >= len(s) || s[sc.pos] != '{' {
		return false
	}
	sc.pos++
	sc.space()
	if sc.pos < len(s) && s[sc.pos] == '}' {
		sc.pos++
	} else {
		for {
			sc.space()
			key, ok := sc.name(0)
			if !ok {
				return false
			}
			start := sc.pos
			i := slices.Index(names, key)
			if i == of && i >= 0 && start < len(s) && s[start] == '{' {
				if !sc.object(2, sub) { // as value(1) scans an object, recording its members
					return false
				}
				sub.Object = true
			} else if i >= 0 && pl.last[i] != "" && strings.HasPrefix(s[start:], pl.last[i]) {
				sc.pos += len(pl.last[i])
			} else if n := pl.seenAt(s[start:], i); n > 0 {
				sc.pos += n
			} else if !sc.value(1) {
				return false
			} else if i >= 0 && i != of {
				pl.remember(s[start:sc.pos])
			}
			for j, w := range names {
				if key == w {
					spans[j], found[j] = s[start:sc.pos], true
				}
			}
			if c := s[start]; i >= 0 && (c == '{' || c == '[') {
				pl.last[i] = s[start:sc.pos]
			}
			if more, ok := sc.next('}'); !more {
				if !ok {
					return false
				}
				break
			}
		}
	}
	sc.space()
	return sc.pos == len(s)
}

// PlainValue is the strict parse of a member's text that Members handed back: scalars
// directly (a plain string has no escapes, a number stays its text), containers by the
// parser.
func PlainValue(span string) (any, bool) {
	switch c := span[0]; {
	case c == '"':
		return span[1 : len(span)-1], true
	case c == '-' || (c >= '0' && c <= '9'):
		return Number(span), true
	case span == "null":
		return nil, true
	case span == "true":
		return true, true
	case span == "false":
		return false, true
	}
	v, err := ParseString(span, Options{NonFinite: true, RejectDuplicates: true})
	return v, err == nil
}

// plainScanner checks the plain subset of JSON without building values.
type plainScanner struct {
	s    string
	pos  int
	keys []string
}

func (p *plainScanner) space() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// str reads a plain string (printable ASCII, no escapes) and returns its contents.
func (p *plainScanner) str() (string, bool) {
	if p.pos >= len(p.s) || p.s[p.pos] != '"' {
		return "", false
	}
	p.pos++
	start := p.pos
	for p.pos < len(p.s) && plainByte[p.s[p.pos]] {
		p.pos++
	}
	if p.pos >= len(p.s) || p.s[p.pos] != '"' {
		return "", false
	}
	p.pos++
	return p.s[start : p.pos-1], true
}

// plainByte marks the bytes a plain string holds: printable ASCII but '"' and '\\'.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// name reads `"key" :` of an object whose names start at keys[mark]; a repeated name is not
// plain.
func (p *plainScanner) name(mark int) (string, bool) {
	key, ok := p.str()
	if !ok {
		return "", false
	}
	for _, k := range p.keys[mark:] {
		if k == key {
			return "", false
		}
	}
	p.keys = append(p.keys, key)
	p.space()
	if p.pos >= len(p.s) || p.s[p.pos] != ':' {
		return "", false
	}
	p.pos++
	p.space()
	return key, true
}

func (p *plainScanner) value(depth int) bool {
	if p.pos >= len(p.s) || depth > PlainMaxDepth {
		return false
	}
	switch c := p.s[p.pos]; {
	case c == '"':
		_, ok := p.str()
		return ok
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == '{':
		return p.object(depth+1, nil)
	case c == '[':
		return p.array(depth + 1)
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(p.s)-p.pos >= len(lit) && p.s[p.pos:p.pos+len(lit)] == lit {
			p.pos += len(lit)
			return true
		}
	}
	return false
}

// object reads an object; when sub is not nil, it records in sub the members sub.Names
// asks for.
func (p *plainScanner) object(depth int, sub *Nested) bool {
	p.pos++ // {
	mark := len(p.keys)
	defer func() { p.keys = p.keys[:mark] }()
	p.space()
	if p.pos < len(p.s) && p.s[p.pos] == '}' {
		p.pos++
		return true
	}
	for {
		p.space()
		key, ok := p.name(mark)
		start := p.pos
		if !ok || !p.value(depth) {
			return false
		}
		if sub != nil {
			for j, w := range sub.Names {
				if key == w {
					sub.Spans[j], sub.Found[j] = p.s[start:p.pos], true
				}
			}
		}
		if more, ok := p.next('}'); !more {
			return ok
		}
	}
}

// next reads what follows a member or element: ',' (more to come) or close (the end, ok).
func (p *plainScanner) next(close byte) (more, ok bool) {
	p.space()
	if p.pos >= len(p.s) {
		return false, false
	}
	switch p.s[p.pos] {
	case ',':
		p.pos++
		return true, true
	case close:
		p.pos++
		return false, true
	}
	return false, false
}

func (p *plainScanner) array(depth int) bool {
	p.pos++ // [
	p.space()
	if p.pos < len(p.s) && p.s[p.pos] == ']' {
		p.pos++
		return true
	}
	for {
		p.space()
		if !p.value(depth) {
			return false
		}
		if more, ok := p.next(']'); !more {
			return ok
		}
	}
}

// number reads JSON's number grammar (as the strict parser does), up to PlainMaxNumber bytes.
func (p *plainScanner) number() bool {
	start := p.pos
	if p.s[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos >= len(p.s):
		return false
	case p.s[p.pos] == '0':
		p.pos++
	case p.s[p.pos] >= '1' && p.s[p.pos] <= '9':
		p.digits()
	default:
		return false
	}
	if p.pos < len(p.s) && p.s[p.pos] == '.' {
		p.pos++
		if p.digits() == 0 {
			return false
		}
	}
	if p.pos < len(p.s) && (p.s[p.pos] == 'e' || p.s[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.s) && (p.s[p.pos] == '+' || p.s[p.pos] == '-') {
			p.pos++
		}
		if p.digits() == 0 {
			return false
		}
	}
	return p.pos-start <= PlainMaxNumber
}

func (p *plainScanner) digits() int {
	n := 0
	for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
		p.pos++
		n++
	}
	return n
}

// AppendPlainString is AppendString, quicker for a string of plain bytes (printable ASCII but
// '"' and '\\'), which AppendString writes as it is between quotes.
func AppendPlainString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if !plainByte[s[i]] {
			return AppendString(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
