package jsonv

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// DefaultMaxDepth bounds nesting when Options.MaxDepth is zero. Python's json.loads gives up
// ("maximum recursion depth exceeded") a little below 1,000 levels; so do we, with an error.
const DefaultMaxDepth = 900

// ErrTooDeep reports a document nested deeper than the parser's limit.
var ErrTooDeep = errors.New("json: nesting too deep")

// ErrDuplicateKey reports a repeated object key when duplicates are rejected.
var ErrDuplicateKey = errors.New("json: duplicate key")

// Options tune the parser.
type Options struct {
	// NonFinite accepts Python's NaN, Infinity and -Infinity literals as Float values.
	NonFinite bool
	// RejectDuplicates makes a repeated key an error; otherwise the last value wins at the
	// position of the first occurrence (Python's dict behaviour).
	RejectDuplicates bool
	// MaxDepth bounds nesting; 0 means DefaultMaxDepth.
	MaxDepth int
}

// SyntaxError describes where a document stopped being JSON.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("json: %s at offset %d", e.Msg, e.Offset) }

// Parse reads one JSON document. Leading and trailing JSON whitespace is allowed; a byte order
// mark, trailing garbage or invalid UTF-8 is an error.
func Parse(data []byte, opt Options) (any, error) { return ParseString(string(data), opt) }

// ParseString is Parse for a string. Strings and numbers in the result share the memory of s
// (one copy of the input for the whole document, none per value).
func ParseString(s string, opt Options) (any, error) {
	if opt.MaxDepth <= 0 {
		opt.MaxDepth = DefaultMaxDepth
	}
	p := parser{src: s, opt: opt}
	st := stacks.Get().(*stack)
	p.values, p.members = st.values, st.members
	defer func() {
		if cap(p.values) <= arenaChunk && cap(p.members) <= arenaChunk { // a huge document's stacks go
			// Cleared once here, up to the deepest use, instead of each time a container
			// closes: the pooled stacks keep no pointer into this document.
			clear(p.values[:p.valuesUsed])
			clear(p.members[:p.membersUsed])
			st.values, st.members = p.values[:0], p.members[:0]
			stacks.Put(st)
		}
	}()
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.src) {
		return nil, p.fail("trailing data after the document")
	}
	return v, nil
}

// stack is a parser's two work stacks, kept between documents (they are empty, and cleared,
// between uses) so that parsing many small documents does not grow them afresh each time.
type stack struct {
	values  []any
	members []Member
}

var stacks = sync.Pool{New: func() any { return new(stack) }}

// parser reads src; values and members being collected for the containers still open wait
// on the two stacks, and each container gets one exact-size slice when it closes. A closed
// container's slots are left as they are (the next container overwrites them) and the
// stacks are cleared up to valuesUsed and membersUsed when the document is done.
type parser struct {
	src         string
	pos         int
	opt         Options
	values      []any
	members     []Member
	valuesUsed  int // the longest values has been in this document
	membersUsed int // the longest members has been in this document
	arena       arena
}

func (p *parser) fail(msg string) error { return &SyntaxError{Offset: p.pos, Msg: msg} }

func (p *parser) skipSpace() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (any, error) {
	if p.pos >= len(p.src) {
		return nil, p.fail("unexpected end of input")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		if depth >= p.opt.MaxDepth {
			return nil, ErrTooDeep
		}
		return p.object(depth + 1)
	case c == '[':
		if depth >= p.opt.MaxDepth {
			return nil, ErrTooDeep
		}
		return p.array(depth + 1)
	case c == '"':
		return p.str()
	case c == '-' || (c >= '0' && c <= '9'):
		if c == '-' && p.opt.NonFinite && p.hasPrefix("-Infinity") {
			p.pos += len("-Infinity")
			return Float(math.Inf(-1)), nil
		}
		return p.number()
	case p.hasPrefix("true"):
		p.pos += 4
		return true, nil
	case p.hasPrefix("false"):
		p.pos += 5
		return false, nil
	case p.hasPrefix("null"):
		p.pos += 4
		return nil, nil
	case p.opt.NonFinite && p.hasPrefix("NaN"):
		p.pos += 3
		return Float(math.NaN()), nil
	case p.opt.NonFinite && p.hasPrefix("Infinity"):
		p.pos += len("Infinity")
		return Float(math.Inf(1)), nil
	}
	if p.pos == 0 && p.hasPrefix("\ufeff") {
		return nil, p.fail("byte order mark before the document")
	}
	return nil, p.fail("unexpected character")
}

func (p *parser) hasPrefix(s string) bool { return strings.HasPrefix(p.src[p.pos:], s) }

// smallObject is the member count up to which the parser finds repeated keys by a linear scan
// and leaves the object without an index (Get scans it; Set builds the index when it adds).
const smallObject = 32

func (p *parser) object(depth int) (any, error) {
	p.pos++                  // {
	mark := len(p.members)   // on an error the document is abandoned; ParseString resets the stacks
	var index map[string]int // key → position in p.members[mark:], past smallObject members
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		return NewObject(), nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return nil, p.fail("expected a string key")
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.fail("expected ':' after a key")
		}
		p.pos++
		p.skipSpace()
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		open := p.members[mark:]
		at := -1
		if index != nil {
			if i, ok := index[key]; ok {
				at = i
			}
		} else {
			for i := range open {
				if open[i].Key == key {
					at = i
					break
				}
			}
		}
		switch {
		case at >= 0 && p.opt.RejectDuplicates:
			return nil, fmt.Errorf("%w %q", ErrDuplicateKey, key)
		case at >= 0: // the last value wins, at the first position (Python's dict)
			open[at].Value = v
		default:
			p.members = append(p.members, Member{key, v})
			p.membersUsed = max(p.membersUsed, len(p.members))
			if n := len(p.members) - mark; index != nil {
				index[key] = n - 1
			} else if n > smallObject {
				index = make(map[string]int, 2*n)
				for i, m := range p.members[mark:] {
					index[m.Key] = i
				}
			}
		}
		p.skipSpace()
		if p.pos >= len(p.src) {
			return nil, p.fail("unterminated object")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			o := p.newObject(p.members[mark:], index)
			p.members = p.members[:mark]
			return o, nil
		default:
			return nil, p.fail("expected ',' or '}' in an object")
		}
	}
}

func (p *parser) array(depth int) (any, error) {
	p.pos++               // [
	mark := len(p.values) // on an error the document is abandoned; ParseString resets the stacks
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		return []any{}, nil
	}
	for {
		p.skipSpace()
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		p.values = append(p.values, v)
		p.valuesUsed = max(p.valuesUsed, len(p.values))
		p.skipSpace()
		if p.pos >= len(p.src) {
			return nil, p.fail("unterminated list")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			l := p.newList(p.values[mark:])
			p.values = p.values[:mark]
			return l, nil
		default:
			return nil, p.fail("expected ',' or ']' in a list")
		}
	}
}

func (p *parser) number() (any, error) {
	start := p.pos
	if p.src[p.pos] == '-' {
		p.pos++
	}
	if p.pos >= len(p.src) {
		return nil, p.fail("incomplete number")
	}
	switch {
	case p.src[p.pos] == '0':
		p.pos++
	case p.src[p.pos] >= '1' && p.src[p.pos] <= '9':
		for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
			p.pos++
		}
	default:
		return nil, p.fail("invalid number")
	}
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		p.pos++
		n := p.digits()
		if n == 0 {
			return nil, p.fail("digits expected after '.'")
		}
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		if p.digits() == 0 {
			return nil, p.fail("digits expected in an exponent")
		}
	}
	return Number(p.src[start:p.pos]), nil
}

func (p *parser) digits() int {
	n := 0
	for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
		p.pos++
		n++
	}
	return n
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func (p *parser) str() (string, error) {
	p.pos++ // opening quote
	start := p.pos
	// Fast path: no escapes; the string is a slice of the input. One table look-up per
	// byte of printable ASCII (plain.go's plainByte); the other bytes are told apart below.
	src, i := p.src, p.pos
	ascii := true
	for i < len(src) {
		c := src[i]
		if plainByte[c] {
			i++
			continue
		}
		if c == '"' {
			s := src[start:i]
			if !ascii && !utf8.ValidString(s) {
				p.pos = i
				return "", p.fail("invalid UTF-8 in a string")
			}
			p.pos = i + 1
			return s, nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			p.pos = i
			return "", p.fail("control character in a string")
		}
		ascii = ascii && c < utf8.RuneSelf // DEL is ASCII, as it was
		i++
	}
	p.pos = i
	buf := make([]byte, 0, p.pos-start+16)
	buf = append(buf, p.src[start:p.pos]...)
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '"':
			if !utf8.Valid(buf) {
				return "", p.fail("invalid UTF-8 in a string")
			}
			p.pos++
			return string(buf), nil
		case c < 0x20:
			return "", p.fail("control character in a string")
		case c == '\\':
			p.pos++
			if p.pos >= len(p.src) {
				return "", p.fail("unterminated escape")
			}
			e := p.src[p.pos]
			p.pos++
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, err := p.hex4()
				if err != nil {
					return "", err
				}
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if p.hasPrefix(`\u`) {
						save := p.pos
						p.pos += 2
						if x, err := p.hex4(); err == nil {
							r2 = x
						} else {
							p.pos = save
						}
						if r2 >= 0 {
							if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
								r = dec
							} else {
								p.pos = save // keep the second escape for the next round
								r = utf8.RuneError
							}
						}
					} else {
						r = utf8.RuneError
					}
				}
				buf = utf8.AppendRune(buf, r)
			default:
				return "", p.fail("invalid escape")
			}
		default:
			buf = append(buf, c)
			p.pos++
		}
	}
	return "", p.fail("unterminated string")
}

func (p *parser) hex4() (rune, error) {
	if len(p.src)-p.pos < 4 {
		return 0, p.fail("short \\u escape")
	}
	n, err := strconv.ParseUint(p.src[p.pos:p.pos+4], 16, 32)
	if err != nil {
		return 0, p.fail("invalid \\u escape")
	}
	p.pos += 4
	return rune(n), nil
}
