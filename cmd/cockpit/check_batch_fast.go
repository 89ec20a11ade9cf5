package main

import (
	"context"
	"fmt"
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
	plain    jsonv.Plain
}

type cachedMandate struct {
	obj     *jsonv.Object // the parsed "mandate" member, as the strict parse gives it
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

var strictLine = jsonv.Options{NonFinite: true, RejectDuplicates: true}

// fastBatchLine is batchLine for a plain line, using c; ok is false when the line is not plain
// (the caller then runs batchLine).
func fastBatchLine(c *batchCache, line string, n int) (live.WhatIfResult, bool) {
	var spans [len(whatIfMembers)]string
	var found [len(whatIfMembers)]bool
	if !c.plain.Members(line, whatIfMembers[:], spans[:], found[:]) {
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
		v, ok := jsonv.PlainValue(spans[i])
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
