package jsonv

// The parser as it was before it read strings in place (kept to check the new one against).

import (
	"fmt"
	"math"
	"strconv"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

func refParse(data []byte, opt Options) (any, error) {
	if opt.MaxDepth <= 0 {
		opt.MaxDepth = DefaultMaxDepth
	}
	p := refParser{data: data, opt: opt}
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return nil, p.fail("trailing data after the document")
	}
	return v, nil
}

func refParseString(s string, opt Options) (any, error) { return refParse([]byte(s), opt) }

type refParser struct {
	data []byte
	pos  int
	opt  Options
}

func (p *refParser) fail(msg string) error { return &SyntaxError{Offset: p.pos, Msg: msg} }

func (p *refParser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *refParser) value(depth int) (any, error) {
	if p.pos >= len(p.data) {
		return nil, p.fail("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
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

func (p *refParser) hasPrefix(s string) bool {
	return len(p.data)-p.pos >= len(s) && string(p.data[p.pos:p.pos+len(s)]) == s
}

func (p *refParser) object(depth int) (any, error) {
	p.pos++ // {
	o := NewObject()
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return o, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.fail("expected a string key")
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.fail("expected ':' after a key")
		}
		p.pos++
		p.skipSpace()
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		if p.opt.RejectDuplicates && o.Has(key) {
			return nil, fmt.Errorf("%w %q", ErrDuplicateKey, key)
		}
		o.Set(key, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.fail("unterminated object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return o, nil
		default:
			return nil, p.fail("expected ',' or '}' in an object")
		}
	}
}

func (p *refParser) array(depth int) (any, error) {
	p.pos++ // [
	arr := []any{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return arr, nil
	}
	for {
		p.skipSpace()
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.fail("unterminated list")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return arr, nil
		default:
			return nil, p.fail("expected ',' or ']' in a list")
		}
	}
}

func (p *refParser) number() (any, error) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	if p.pos >= len(p.data) {
		return nil, p.fail("incomplete number")
	}
	switch {
	case p.data[p.pos] == '0':
		p.pos++
	case p.data[p.pos] >= '1' && p.data[p.pos] <= '9':
		for p.pos < len(p.data) && isDigit(p.data[p.pos]) {
			p.pos++
		}
	default:
		return nil, p.fail("invalid number")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		n := p.digits()
		if n == 0 {
			return nil, p.fail("digits expected after '.'")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if p.digits() == 0 {
			return nil, p.fail("digits expected in an exponent")
		}
	}
	return Number(p.data[start:p.pos]), nil
}

func (p *refParser) digits() int {
	n := 0
	for p.pos < len(p.data) && isDigit(p.data[p.pos]) {
		p.pos++
		n++
	}
	return n
}

func (p *refParser) str() (string, error) {
	p.pos++ // opening quote
	start := p.pos
	// Fast path: no escapes.
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			s := p.data[start:p.pos]
			if !utf8.Valid(s) {
				return "", p.fail("invalid UTF-8 in a string")
			}
			p.pos++
			return string(s), nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", p.fail("control character in a string")
		}
		p.pos++
	}
	buf := make([]byte, 0, p.pos-start+16)
	buf = append(buf, p.data[start:p.pos]...)
	for p.pos < len(p.data) {
		c := p.data[p.pos]
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
			if p.pos >= len(p.data) {
				return "", p.fail("unterminated escape")
			}
			e := p.data[p.pos]
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

func (p *refParser) hex4() (rune, error) {
	if len(p.data)-p.pos < 4 {
		return 0, p.fail("short \\u escape")
	}
	n, err := strconv.ParseUint(string(p.data[p.pos:p.pos+4]), 16, 32)
	if err != nil {
		return 0, p.fail("invalid \\u escape")
	}
	p.pos += 4
	return rune(n), nil
}

// FuzzParseMatchesReference: the in-place parser gives the old parser's documents (same
// members in the same order, same number text) and the same errors, in every mode.
func FuzzParseMatchesReference(f *testing.F) {
	for _, s := range []string{
		`{"a": 1, "a": 2}`, `{"a":[1,2,{"b":NaN}],"c":-Infinity}`, `"\ud83d\ude00"`, `"\ud83dx"`,
		`{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k1":10}`, "\ufeff{}",
		`[1.5e3, -0, 0.1, "caf\u00e9", "\xff"]`, `{"a" 1}`, `[1,]`, `{"x": "tab	"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opt := range []Options{{}, {NonFinite: true}, {RejectDuplicates: true, NonFinite: true}, {MaxDepth: 3}} {
			got, err := Parse(data, opt)
			want, wantErr := refParse(data, opt)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("%+v: error %v, want %v", opt, err, wantErr)
			}
			if err != nil {
				continue
			}
			if g, w := fmt.Sprintf("%#v", dump(got)), fmt.Sprintf("%#v", dump(want)); g != w {
				t.Fatalf("%+v: got %s, want %s", opt, g, w)
			}
		}
	})
}

// dump spells a document out with its types, keys in order and numbers as text; NaN as "NaN".
func dump(v any) any {
	switch t := v.(type) {
	case *Object:
		out := []any{"object"}
		for _, m := range t.Members() {
			out = append(out, m.Key, dump(m.Value))
		}
		for _, m := range t.Members() {
			if w, ok := t.Get(m.Key); !ok || fmt.Sprintf("%#v", dump(w)) != fmt.Sprintf("%#v", dump(m.Value)) {
				out = append(out, "index broken at "+m.Key)
			}
		}
		return out
	case []any:
		out := []any{"list"}
		for _, e := range t {
			out = append(out, dump(e))
		}
		return out
	case Float:
		return fmt.Sprintf("Float(%v)", float64(t))
	}
	return v
}
