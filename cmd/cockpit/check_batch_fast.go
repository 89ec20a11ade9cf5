package main

import (
	"context"
	"fmt"
	"sync"

	"cockpit/live"
	"cockpit/live/jsonv"
)

// The batch's fast path. Most lines are plain JSON (ASCII strings without escapes, ordinary
// numbers, no repeated names), carry fields a what-if ignores ("note", "expected", …) and
// repeat a few mandates. fastBatchLine checks such a line's syntax without building values,
// parses only the members WhatIfFromJSON reads, and validates each distinct mandate text once.
// Anything else (an escape, a non-ASCII byte, NaN/Infinity literals, a repeated name, a long
// number, deep nesting, a syntax error) goes to batchLine, the strict path, which then
// decides the verdict; the result is the same bytes either way (TestFastBatchLineMatchesStrict,
// FuzzFastBatchLineMatchesStrict).

// batchCache remembers, per mandate text, the parsed mandate and what CapsFromJSON made of
// it. One worker uses a cache at a time; it is emptied when it grows past fastCacheLimit.
type batchCache struct {
	mandates map[string]*cachedMandate
	keys     []string // the open objects' names, for repeated-name detection
}

type cachedMandate struct {
	obj     *jsonv.Object // the parsed "mandate" member, as the strict parse gives it
	checked bool          // caps and err are set
	caps    *live.Mandate // only read by CheckMandate
	err     error
}

const (
	fastCacheLimit = 256 // distinct mandate texts kept per cache
	fastMaxDepth   = 16  // deeper lines take the strict path
	fastMaxNumber  = 40  // longer number texts take the strict path
)

func newBatchCache() *batchCache { return &batchCache{mandates: map[string]*cachedMandate{}} }

// batchCaches hands each chunk's worker a cache (mandates repeat across chunks).
var batchCaches = sync.Pool{New: func() any { return newBatchCache() }}

// whatIfMembers are the line members WhatIfFromJSON reads.
var whatIfMembers = [...]string{"id", "mandate", "intent", "positions", "daily_count", "universe_data", "equity"}

var strictLine = jsonv.Options{NonFinite: true, RejectDuplicates: true}

// fastBatchLine is batchLine for a plain line, using c; ok is false when the line is not plain
// (the caller then runs batchLine).
func fastBatchLine(c *batchCache, line string, n int) (live.WhatIfResult, bool) {
	var spans [len(whatIfMembers)]string
	var found [len(whatIfMembers)]bool
	if !c.scanLine(line, &spans, &found) {
		return live.WhatIfResult{}, false
	}
	o := jsonv.NewObject()
	var entry *cachedMandate
	for i, name := range whatIfMembers {
		if !found[i] {
			continue
		}
		if name == "mandate" {
			if entry = c.mandates[spans[i]]; entry == nil {
				v, err := jsonv.ParseString(spans[i], strictLine)
				if err != nil {
					return live.WhatIfResult{}, false
				}
				obj, _ := v.(*jsonv.Object)
				if obj == nil { // not an object: WhatIfFromJSON's error, on the strict path
					return live.WhatIfResult{}, false
				}
				if len(c.mandates) >= fastCacheLimit {
					clear(c.mandates)
				}
				entry = &cachedMandate{obj: obj}
				c.mandates[spans[i]] = entry
			}
			o.Set(name, entry.obj)
			continue
		}
		v, ok := plainValue(spans[i])
		if !ok {
			return live.WhatIfResult{}, false
		}
		o.Set(name, v)
	}
	if entry == nil { // no mandate: WhatIfFromJSON's error, on the strict path
		return live.WhatIfResult{}, false
	}
	sid, _ := o.Value("id").(string)
	w, err := live.WhatIfFromJSON(o)
	if err != nil {
		return badLine(sid, n, err), true
	}
	if w.ID == "" {
		w.ID = fmt.Sprintf("line %d", n)
	}
	if !entry.checked {
		entry.caps, entry.err = live.CapsFromJSON(w.Mandate)
		entry.checked = true
	}
	return live.EvaluateWhatIfCaps(context.Background(), w, entry.caps, entry.err), true
}

// plainValue is the strict parse of a member's text that scanLine accepted: scalars directly
// (a plain string has no escapes, a number stays its text), containers by the parser.
func plainValue(span string) (any, bool) {
	switch c := span[0]; {
	case c == '"':
		return span[1 : len(span)-1], true
	case c == '-' || (c >= '0' && c <= '9'):
		return jsonv.Number(span), true
	case span == "null":
		return nil, true
	case span == "true":
		return true, true
	case span == "false":
		return false, true
	}
	v, err := jsonv.ParseString(span, strictLine)
	return v, err == nil
}

// scanLine checks that line is one plain JSON object and records the text of the members
// named in whatIfMembers; false means "not plain" (or not JSON), never a verdict.
func (c *batchCache) scanLine(s string, spans *[len(whatIfMembers)]string, found *[len(whatIfMembers)]bool) bool {
	sc := plainScanner{s: s, keys: c.keys[:0]}
	defer func() { c.keys = sc.keys[:0] }()
	sc.space()
	if sc.pos >= len(s) || s[sc.pos] != '{' {
		return false
	}
	sc.pos++
	mark := len(sc.keys)
	sc.space()
	if sc.pos < len(s) && s[sc.pos] == '}' {
		sc.pos++
	} else {
		for {
			sc.space()
			key, ok := sc.name(mark)
			if !ok {
				return false
			}
			start := sc.pos
			if !sc.value(1) {
				return false
			}
			for i, w := range whatIfMembers {
				if key == w {
					spans[i], found[i] = s[start:sc.pos], true
				}
			}
			sc.space()
			if sc.pos >= len(s) {
				return false
			}
			if s[sc.pos] == '}' {
				sc.pos++
				break
			}
			if s[sc.pos] != ',' {
				return false
			}
			sc.pos++
		}
	}
	sc.space()
	return sc.pos == len(s)
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
	if p.pos >= len(p.s) || depth > fastMaxDepth {
		return false
	}
	switch c := p.s[p.pos]; {
	case c == '"':
		_, ok := p.str()
		return ok
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == '{':
		return p.object(depth + 1)
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

func (p *plainScanner) object(depth int) bool {
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
		if _, ok := p.name(mark); !ok || !p.value(depth) {
			return false
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

// number reads JSON's number grammar (as the strict parser does), up to fastMaxNumber bytes.
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
	return p.pos-start <= fastMaxNumber
}

func (p *plainScanner) digits() int {
	n := 0
	for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
		p.pos++
		n++
	}
	return n
}
