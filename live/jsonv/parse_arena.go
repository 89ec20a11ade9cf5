package jsonv

import "strings"

// arenaChunk bounds one arena allocation: a huge document gets its containers in chunks of
// this many, so an estimate from the input's bytes never costs more than a chunk of slack.
const arenaChunk = 4096

// arena hands out the parsed containers of one document from a few shared allocations
// instead of one per object, member list and list. Each piece is cut with its capacity equal
// to its length, so a later Set or append on one object reallocates instead of growing into
// its neighbour.
type arena struct {
	objs []Object
	mems []Member
	vals []any
	// hints from the input, each capped at arenaChunk, 0 until the first container asks:
	// '{' for objects, ':' for members (upper bounds, less what strings hold), and for list
	// items the ',' that are not between members plus one per '[' (an estimate: a chunk
	// that runs out is followed by a larger one).
	objHint, memHint, valHint int
	counted                   bool
}

func (a *arena) count(src string) {
	a.counted = true
	objs, mems := strings.Count(src, "{"), strings.Count(src, ":")
	// Members after an object's first take one ',' each: commas − (colons − objects) are
	// the lists' separators, one fewer than their items.
	items := max(strings.Count(src, ",")-mems+objs, 0) + strings.Count(src, "[")
	a.objHint = min(objs, arenaChunk)
	a.memHint = min(mems, arenaChunk)
	a.valHint = min(items, arenaChunk)
}

// object returns a new object holding a copy of members.
func (p *parser) newObject(members []Member, index map[string]int) *Object {
	a := &p.arena
	if !a.counted {
		a.count(p.src)
	}
	if len(a.objs) == cap(a.objs) {
		a.objs = make([]Object, 0, max(a.objHint, 1))
		a.objHint = min(2*a.objHint+1, arenaChunk)
	}
	a.objs = a.objs[:len(a.objs)+1]
	o := &a.objs[len(a.objs)-1]
	o.members = cutMembers(a, len(members))
	copy(o.members, members)
	o.index = index
	return o
}

func cutMembers(a *arena, n int) []Member {
	if cap(a.mems)-len(a.mems) < n {
		if n > a.memHint {
			return make([]Member, n)
		}
		a.mems = make([]Member, 0, a.memHint)
		a.memHint = min(2*a.memHint, arenaChunk)
	}
	start := len(a.mems)
	a.mems = a.mems[:start+n]
	return a.mems[start : start+n : start+n]
}

// newList returns a list holding a copy of values.
func (p *parser) newList(values []any) []any {
	a := &p.arena
	if !a.counted {
		a.count(p.src)
	}
	n := len(values)
	var out []any
	if cap(a.vals)-len(a.vals) < n {
		if n > a.valHint {
			out = make([]any, n)
			copy(out, values)
			return out
		}
		a.vals = make([]any, 0, a.valHint)
		a.valHint = min(2*a.valHint, arenaChunk)
	}
	start := len(a.vals)
	a.vals = a.vals[:start+n]
	out = a.vals[start : start+n : start+n]
	copy(out, values)
	return out
}
