package jsonv

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Canonical encodes v with sorted keys and no spaces, for hashing: the same value always
// gives the same bytes. Numbers keep their text; strings are raw UTF-8.
func Canonical(v any) ([]byte, error) { return appendCanonical(nil, v, false) }

// CanonicalPython encodes v as Python's json.dumps(v, sort_keys=True, separators=(",", ":"),
// ensure_ascii=True) would: non-ASCII escaped as \uXXXX, and numbers with a fraction or an
// exponent written as Python's float repr (750.0, 1e+16, 1e-07). Vibe-Trading's audit chain
// hashes this encoding.
func CanonicalPython(v any) ([]byte, error) { return appendCanonical(nil, v, true) }

func appendCanonical(b []byte, v any, py bool) ([]byte, error) {
	switch t := v.(type) {
	case *Object:
		members := append([]Member(nil), t.Members()...)
		sort.Slice(members, func(i, j int) bool { return members[i].Key < members[j].Key })
		b = append(b, '{')
		for i, m := range members {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCanonicalString(b, m.Key, py)
			b = append(b, ':')
			var err error
			if b, err = appendCanonical(b, m.Value, py); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendCanonical(b, e, py); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case string:
		return appendCanonicalString(b, t, py), nil
	case Number:
		if py && strings.ContainsAny(string(t), ".eE") {
			f, err := t.Float64()
			if err != nil && !math.IsInf(f, 0) {
				return nil, err
			}
			return appendPyFloat(b, f), nil
		}
		if py {
			return append(b, normalizeInt(string(t))...), nil
		}
		return append(b, t...), nil
	case Float:
		if !py {
			return nil, ErrNonFinite
		}
		return appendFloat(b, float64(t), Python)
	default:
		return appendValue(b, v, Compact)
	}
}

func appendCanonicalString(b []byte, s string, ascii bool) []byte {
	if !ascii {
		return AppendString(b, s)
	}
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, r := range s {
		switch e := shortEscape(r); {
		case e != 0:
			b = append(b, '\\', e)
		case r < 0x20 || (r >= 0x7f && r < 0x10000):
			b = append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
		case r >= 0x10000 && r != utf8.RuneError:
			r1, r2 := utf16.EncodeRune(r)
			for _, x := range []rune{r1, r2} {
				b = append(b, '\\', 'u', hex[x>>12&0xf], hex[x>>8&0xf], hex[x>>4&0xf], hex[x&0xf])
			}
		default:
			b = append(b, byte(r))
		}
	}
	return append(b, '"')
}

// appendPyFloat writes Python's repr of a float: fixed notation with at least one fraction
// digit when 1e-4 <= |f| < 1e16, otherwise the shortest mantissa and a two-digit exponent.
func appendPyFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(b, "-0.0"...)
		}
		return append(b, "0.0"...)
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	if exp >= -4 && exp < 16 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return append(b, s...)
	}
	b = append(b, mant...)
	b = append(b, 'e')
	if exp < 0 {
		b = append(b, '-')
		exp = -exp
	} else {
		b = append(b, '+')
	}
	if exp < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, int64(exp), 10)
}

// normalizeInt writes a JSON integer as Python would re-encode it ("-0" is 0).
func normalizeInt(s string) string {
	if s == "-0" {
		return "0"
	}
	return s
}
