package jsonv

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"unicode/utf8"
)

// Style selects separators and the treatment of non-finite numbers when encoding.
type Style int

const (
	// Compact writes "," and ":" with no spaces and rejects non-finite numbers.
	Compact Style = iota
	// Python writes ", " and ": " (json.dumps defaults), raw UTF-8, and NaN/Infinity literals.
	Python
)

// ErrNonFinite reports a NaN or infinity that the chosen style cannot write.
var ErrNonFinite = errors.New("json: non-finite number")

// Marshal encodes v in the given style.
func Marshal(v any, style Style) ([]byte, error) {
	return appendValue(nil, v, style)
}

// MarshalString is Marshal returning a string.
func MarshalString(v any, style Style) (string, error) {
	b, err := Marshal(v, style)
	return string(b), err
}

// MustMarshal is Marshal for values known to be encodable (no non-finite numbers in Compact).
func MustMarshal(v any, style Style) []byte {
	b, err := Marshal(v, style)
	if err != nil {
		panic(err)
	}
	return b
}

func appendValue(b []byte, v any, style Style) ([]byte, error) {
	switch t := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, t), nil
	case string:
		return AppendString(b, t), nil
	case Number:
		return append(b, t...), nil
	case Float:
		return appendFloat(b, float64(t), style)
	case float64:
		return appendFloat(b, t, style)
	case int:
		return strconv.AppendInt(b, int64(t), 10), nil
	case int64:
		return strconv.AppendInt(b, t, 10), nil
	case []any:
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = appendSep(b, ',', style)
			}
			var err error
			if b, err = appendValue(b, e, style); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case *Object:
		b = append(b, '{')
		for i, m := range t.members {
			if i > 0 {
				b = appendSep(b, ',', style)
			}
			b = AppendString(b, m.Key)
			b = appendSep(b, ':', style)
			var err error
			if b, err = appendValue(b, m.Value, style); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	default:
		// Plain Go values (structs, maps, typed numbers) go through encoding/json.
		raw, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		return append(b, raw...), nil
	}
}

func appendSep(b []byte, c byte, style Style) []byte {
	b = append(b, c)
	if style == Python {
		b = append(b, ' ')
	}
	return b
}

func appendFloat(b []byte, f float64, style Style) ([]byte, error) {
	switch {
	case math.IsNaN(f):
		if style != Python {
			return nil, ErrNonFinite
		}
		return append(b, "NaN"...), nil
	case math.IsInf(f, 1):
		if style != Python {
			return nil, ErrNonFinite
		}
		return append(b, "Infinity"...), nil
	case math.IsInf(f, -1):
		if style != Python {
			return nil, ErrNonFinite
		}
		return append(b, "-Infinity"...), nil
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64), nil
}

// shortEscape is the letter of JSON's two-character escape for r ('"', '\\', n, r, t, b,
// f), or 0 when r has none.
func shortEscape(r rune) byte {
	switch r {
	case '"', '\\':
		return byte(r)
	case '\n':
		return 'n'
	case '\r':
		return 'r'
	case '\t':
		return 't'
	case '\b':
		return 'b'
	case '\f':
		return 'f'
	}
	return 0
}

// AppendString appends s as a JSON string with raw UTF-8; quotes, backslashes and control
// characters are escaped, and invalid UTF-8 becomes U+FFFD.
func AppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch e := shortEscape(rune(c)); {
			case e != 0:
				b = append(b, '\\', e)
			case c < 0x20 || c == 0x7f:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\ufffd"...)
		} else if r == '\u2028' || r == '\u2029' {
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// FromGo converts a Go value (struct, map, slice, scalar) into ordered JSON values by encoding
// it with encoding/json and parsing the result; struct field order is kept.
func FromGo(v any) (any, error) {
	switch v.(type) {
	case nil, bool, string, Number, Float, []any, *Object:
		return v, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return Parse(raw, Options{})
}

// MarshalJSON lets an *Object be embedded in values encoded by encoding/json.
func (o *Object) MarshalJSON() ([]byte, error) { return Marshal(o, Compact) }

// UnmarshalJSON lets an *Object be decoded by encoding/json (key order and numbers kept).
func (o *Object) UnmarshalJSON(b []byte) error {
	v, err := Parse(b, Options{NonFinite: true})
	if err != nil {
		return err
	}
	obj, ok := v.(*Object)
	if !ok {
		return &SyntaxError{Msg: "want a JSON object, got " + TypeName(v)}
	}
	*o = *obj
	return nil
}
