// Package jsonv holds JSON documents as ordered values.
//
// Objects keep their key order, numbers keep their exact text, and the parser can be told to
// accept Python's NaN/Infinity literals (the dialect of Vibe-Trading's files and of tool
// results) or to reject duplicate keys (strict files such as mandates). Values are:
//
//	nil, bool, string, Number (raw text), Float (a non-finite number), []any, *Object
package jsonv

import (
	"math"
	"strconv"
)

// Number is a finite JSON number kept as its source text.
type Number string

// Float64 converts n; the error reports text that does not fit a float64.
func (n Number) Float64() (float64, error) { return strconv.ParseFloat(string(n), 64) }

// Float is a non-finite number: NaN, +Inf or -Inf (Python's NaN/Infinity literals).
type Float float64

// Member is one key/value pair of an Object.
type Member struct {
	Key   string
	Value any
}

// Object is a JSON object that keeps its key order.
type Object struct {
	members []Member
	index   map[string]int
}

// NewObject returns an empty object.
func NewObject() *Object { return &Object{} }

// ObjectOf builds an object from alternating keys and values; it panics on a malformed list.
func ObjectOf(kv ...any) *Object {
	o := NewObject()
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	if len(kv)%2 != 0 {
		panic("jsonv.ObjectOf: odd argument count")
	}
	return o
}

// Len returns the number of members (0 for a nil object).
func (o *Object) Len() int {
	if o == nil {
		return 0
	}
	return len(o.members)
}

// Members returns the members in order (none for a nil object); the slice must not be modified.
func (o *Object) Members() []Member {
	if o == nil {
		return nil
	}
	return o.members
}

// Keys returns the keys in order.
func (o *Object) Keys() []string {
	keys := make([]string, o.Len())
	for i, m := range o.Members() {
		keys[i] = m.Key
	}
	return keys
}

// Get returns the value under key and whether the key is present.
func (o *Object) Get(key string) (any, bool) {
	if o == nil {
		return nil, false
	}
	if o.index == nil {
		for _, m := range o.members {
			if m.Key == key {
				return m.Value, true
			}
		}
		return nil, false
	}
	i, ok := o.index[key]
	if !ok {
		return nil, false
	}
	return o.members[i].Value, true
}

// Value is o[key], nil when absent.
func (o *Object) Value(key string) any {
	v, _ := o.Get(key)
	return v
}

// Object is o[key] when it is an object.
func (o *Object) Object(key string) (*Object, bool) {
	v, ok := o.Get(key)
	if !ok {
		return nil, false
	}
	obj, ok := v.(*Object)
	return obj, ok
}

// Has reports whether key is present.
func (o *Object) Has(key string) bool {
	_, ok := o.Get(key)
	return ok
}

// Set replaces the value of an existing key in place or appends a new member.
func (o *Object) Set(key string, v any) {
	if i, ok := o.find(key); ok {
		o.members[i].Value = v
		return
	}
	o.members = append(o.members, Member{key, v})
	if o.index != nil {
		o.index[key] = len(o.members) - 1
	} else if len(o.members) > 8 {
		o.index = make(map[string]int, len(o.members))
		for i, m := range o.members {
			o.index[m.Key] = i
		}
	}
}

// Delete removes key if present.
func (o *Object) Delete(key string) {
	i, ok := o.find(key)
	if !ok {
		return
	}
	o.members = append(o.members[:i], o.members[i+1:]...)
	if o.index != nil {
		o.index = make(map[string]int, len(o.members))
		for j, m := range o.members {
			o.index[m.Key] = j
		}
	}
}

func (o *Object) find(key string) (int, bool) {
	if o.index != nil {
		i, ok := o.index[key]
		return i, ok
	}
	for i, m := range o.members {
		if m.Key == key {
			return i, true
		}
	}
	return 0, false
}

// Clone returns a deep copy of v.
func Clone(v any) any {
	switch t := v.(type) {
	case *Object:
		c := &Object{members: make([]Member, len(t.members))}
		for i, m := range t.members {
			c.members[i] = Member{m.Key, Clone(m.Value)}
		}
		if t.index != nil {
			c.index = make(map[string]int, len(t.index))
			for k, i := range t.index {
				c.index[k] = i
			}
		}
		return c
	case []any:
		c := make([]any, len(t))
		for i, e := range t {
			c[i] = Clone(e)
		}
		return c
	default:
		return v
	}
}

// Equal reports whether a and b are the same JSON value. Numbers compare by value, so 1 equals
// 1.0; NaN equals NaN (the comparison is about documents, not arithmetic).
func Equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case Number, Float:
		fx, okx := ToFloat(a)
		fy, oky := ToFloat(b)
		if !okx || !oky {
			return false
		}
		if math.IsNaN(fx) || math.IsNaN(fy) {
			return math.IsNaN(fx) && math.IsNaN(fy)
		}
		return fx == fy
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case *Object:
		y, ok := b.(*Object)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for _, m := range x.members {
			w, ok := y.Get(m.Key)
			if !ok || !Equal(m.Value, w) {
				return false
			}
		}
		return true
	}
	return false
}

// ToFloat returns a number's float64 value (Number or Float); ok is false for other kinds.
func ToFloat(v any) (float64, bool) {
	switch t := v.(type) {
	case Number:
		f, err := t.Float64()
		if err != nil {
			// Overflowing text such as 1e400 reads as ±Inf, as Python's float() does.
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				return f, true
			}
			return 0, false
		}
		return f, true
	case Float:
		return float64(t), true
	}
	return 0, false
}

// Truthy is Python's bool() of a parsed JSON value: false for null, false, "", 0, [] and {}.
// A number is read as json.loads reads it, so a float that underflows to 0.0 is false.
func Truthy(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case string:
		return t != ""
	case Number:
		f, ok := ToFloat(t)
		return !ok || f != 0
	case []any:
		return len(t) > 0
	case *Object:
		return t.Len() > 0
	}
	return true
}

// TypeName names the JSON kind of v for error messages.
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case Number:
		return "a number"
	case Float:
		return "a non-finite number"
	case []any:
		return "a list"
	case *Object:
		return "an object"
	}
	return "an unknown value"
}
