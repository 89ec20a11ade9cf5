package main

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"cockpit/live"
	"cockpit/live/jsonv"
)

// The batch's fast path. Most lines are plain JSON (jsonv.Plain: ASCII strings without
// escapes, ordinary numbers, no repeated names), carry fields a what-if ignores ("note",
// "expected", …) and repeat a few mandates. fastBatchLine has jsonv.Plain check such a line's
// syntax without building values, parses only the members WhatIfFromJSON reads, and validates
// each distinct mandate text once. Anything else goes to batchLine, the strict path, which
// then decides the verdict; the result is the same bytes either way
// (TestFastBatchLineMatchesStrict, FuzzFastBatchLineMatchesStrict).

// batchCache remembers, per mandate text, the parsed mandate and what CapsFromJSON made of
// it, per positions text its value and book, and per universe_data text its value. One worker
// uses a cache at a time; each map is emptied when it grows past fastCacheLimit. What it keeps
// is only read: CheckMandate and EvaluateWhatIfRead never write to a mandate, a book (read-only
// once built) or a value (TestFastBatchCacheReuseIsPure).
type batchCache struct {
	mandates  map[string]*cachedMandate
	last      *cachedMandate // the entry last looked up
	positions map[string]*cachedPositions
	universe  map[string]any // {"$float": …} decoded
	plain     jsonv.Plain
	intent    jsonv.Nested // the intent's members, from the line's scan (IntentFromMembers)
}

type cachedPositions struct {
	value any       // as the strict parse gives it, {"$float": …} decoded
	book  live.Book // ParsePositions(value)
}

type cachedMandate struct {
	text    string        // the mandate member's text (the cache's own copy)
	value   any           // as the strict parse gives it, {"$float": …} decoded
	checked bool          // caps and err are set
	caps    *live.Mandate // only read by CheckMandate
	err     error
}

const fastCacheLimit = 256 // distinct mandate texts kept per cache

// readIntent stands, for WhatIfFromMembers, for an intent IntentFromMembers has read: it only
// checks that the intent is an object. It is never read.
var readIntent = jsonv.NewObject()

func newBatchCache() *batchCache {
	names := live.IntentKeys()
	intent := jsonv.Nested{Of: memberIntent, Names: names, Spans: make([]string, len(names)), Found: make([]bool, len(names))}
	return &batchCache{mandates: map[string]*cachedMandate{}, positions: map[string]*cachedPositions{}, universe: map[string]any{}, intent: intent}
}

// batchCaches hands each chunk's worker a cache (mandates repeat across chunks).
var batchCaches = sync.Pool{New: func() any { return newBatchCache() }}

// whatIfMembers are the line members WhatIfFromJSON reads.
var whatIfMembers = [...]string{"id", "mandate", "intent", "positions", "daily_count", "universe_data", "equity"}

const (
	memberID, memberMandate, memberIntent, memberPositions = 0, 1, 2, 3
	memberUniverse                                         = 5
)

var strictLine = jsonv.Options{NonFinite: true, RejectDuplicates: true}

// mandate is the cache entry for a mandate member's text (made on first sight), nil when the
// text is not an object (WhatIfFromJSON's error, on the strict path).
func (c *batchCache) mandate(span string) *cachedMandate {
	if c.last != nil && span == c.last.text {
		return c.last
	}
	entry := c.mandates[span]
	if entry == nil {
		key := strings.Clone(span) // span shares the input's block: the cache keeps its own copy
		v, err := jsonv.ParseString(key, strictLine)
		if err != nil {
			return nil
		}
		if _, ok := v.(*jsonv.Object); !ok {
			return nil
		}
		if len(c.mandates) >= fastCacheLimit {
			clear(c.mandates)
		}
		entry = &cachedMandate{text: key, value: live.DecodeFloatsShared(v)}
		c.mandates[key] = entry
	}
	c.last = entry
	return entry
}

// memoValue is what the member text span became, from m or else made by parse from the
// cache's own copy of the text and kept; ok is false when the text does not parse.
func memoValue[T any](m map[string]T, span string, parse func(text string) (T, bool)) (T, bool) {
	if v, ok := m[span]; ok {
		return v, true
	}
	key := strings.Clone(span) // span shares the input's block: the cache keeps its own copy
	v, ok := parse(key)
	if !ok {
		return v, false
	}
	if len(m) >= fastCacheLimit {
		clear(m)
	}
	m[key] = v
	return v, true
}

// plainDecoded is a member text's strict value with its {"$float": …} objects decoded.
func plainDecoded(text string) (any, bool) {
	v, ok := jsonv.PlainValue(text)
	return live.DecodeFloatsShared(v), ok
}

func parsePositions(text string) (*cachedPositions, bool) {
	v, ok := plainDecoded(text)
	if !ok {
		return nil, false
	}
	return &cachedPositions{value: v, book: live.ParsePositions(v)}, true
}

// fastBatchLine is batchLine for a plain line, using c; ok is false when the line is not plain
// (the caller then runs batchLine).
func fastBatchLine(c *batchCache, line string, n int) (live.WhatIfResult, bool) {
	var spans [len(whatIfMembers)]string
	var found [len(whatIfMembers)]bool
	if !c.plain.MembersNested(line, whatIfMembers[:], spans[:], found[:], &c.intent) || !found[memberMandate] {
		return live.WhatIfResult{}, false // no mandate: WhatIfFromJSON's error, on the strict path
	}
	entry := c.mandate(spans[memberMandate])
	if entry == nil {
		return live.WhatIfResult{}, false
	}
	var values [len(whatIfMembers)]any
	var pos *cachedPositions
	var in live.OrderIntent
	intentRead := false
	for i := range whatIfMembers {
		if !found[i] || i == memberMandate {
			continue
		}
		var ok bool
		switch i {
		case memberIntent:
			if c.intent.Object {
				in, intentRead = live.IntentFromMembers(c.intent.Spans, c.intent.Found)
			}
			if intentRead {
				values[i], ok = readIntent, true
			} else {
				values[i], ok = plainDecoded(spans[i])
			}
		case memberPositions:
			if pos, ok = memoValue(c.positions, spans[i], parsePositions); ok {
				values[i] = pos.value
			}
		case memberUniverse:
			values[i], ok = memoValue(c.universe, spans[i], plainDecoded)
		default:
			values[i], ok = plainDecoded(spans[i])
		}
		if !ok {
			return live.WhatIfResult{}, false
		}
	}
	values[memberMandate] = entry.value
	sid, _ := values[memberID].(string)
	w, err := live.WhatIfFromMembers(func(key string) (any, bool) {
		for i, name := range whatIfMembers {
			if name == key {
				return values[i], found[i]
			}
		}
		return nil, false
	})
	if err != nil {
		return badLine(sid, n, err), true
	}
	if w.ID == "" {
		w.ID = fmt.Sprintf("line %d", n)
	}
	if intentRead {
		w.Intent = nil // readIntent: the intent is in
	} else {
		in = live.IntentFromJSON(w.Intent)
	}
	if !entry.checked {
		entry.caps, entry.err = live.CapsFromJSON(w.Mandate)
		entry.checked = true
	}
	if entry.err != nil {
		return live.EvaluateWhatIfCaps(context.Background(), w, nil, entry.err), true
	}
	var book live.Book
	if pos != nil {
		book = pos.book
	} else {
		book = live.ParsePositions(w.Positions) // no positions member: []
	}
	return live.EvaluateWhatIfRead(context.Background(), w, entry.caps, in, book), true
}
