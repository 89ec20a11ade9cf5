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
// it. One worker uses a cache at a time; it is emptied when it grows past fastCacheLimit.
type batchCache struct {
	mandates map[string]*cachedMandate
	last     *cachedMandate // the entry last looked up
	plain    jsonv.Plain
}

type cachedMandate struct {
	text    string        // the mandate member's text (the cache's own copy)
	value   any           // as the strict parse gives it, {"$float": …} decoded
	checked bool          // caps and err are set
	caps    *live.Mandate // only read by CheckMandate
	err     error
}

const fastCacheLimit = 256 // distinct mandate texts kept per cache

func newBatchCache() *batchCache { return &batchCache{mandates: map[string]*cachedMandate{}} }

// batchCaches hands each chunk's worker a cache (mandates repeat across chunks).
var batchCaches = sync.Pool{New: func() any { return newBatchCache() }}

// whatIfMembers are the line members WhatIfFromJSON reads.
var whatIfMembers = [...]string{"id", "mandate", "intent", "positions", "daily_count", "universe_data", "equity"}

const memberID, memberMandate = 0, 1

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

// fastBatchLine is batchLine for a plain line, using c; ok is false when the line is not plain
// (the caller then runs batchLine).
func fastBatchLine(c *batchCache, line string, n int) (live.WhatIfResult, bool) {
	var spans [len(whatIfMembers)]string
	var found [len(whatIfMembers)]bool
	if !c.plain.Members(line, whatIfMembers[:], spans[:], found[:]) || !found[memberMandate] {
		return live.WhatIfResult{}, false // no mandate: WhatIfFromJSON's error, on the strict path
	}
	entry := c.mandate(spans[memberMandate])
	if entry == nil {
		return live.WhatIfResult{}, false
	}
	var values [len(whatIfMembers)]any
	for i := range whatIfMembers {
		if !found[i] || i == memberMandate {
			continue
		}
		v, ok := jsonv.PlainValue(spans[i])
		if !ok {
			return live.WhatIfResult{}, false
		}
		values[i] = live.DecodeFloatsShared(v)
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
	if !entry.checked {
		entry.caps, entry.err = live.CapsFromJSON(w.Mandate)
		entry.checked = true
	}
	return live.EvaluateWhatIfCaps(context.Background(), w, entry.caps, entry.err), true
}
