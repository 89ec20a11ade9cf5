package jsonv

import (
	"hash/maphash"
	"strings"
)

const (
	// plainSeenMin is the shortest object or list text Plain remembers (a shorter one is
	// scanned as quickly as it is looked up).
	plainSeenMin = 64
	// plainSeenMax bounds the texts Plain remembers; the set is emptied when it is full.
	plainSeenMax = 256
)

// seenAt is the length of the value at the start of t when that value is a text Plain
// remembers, else 0; i is the member's index in the names asked for (-1: not asked for, not
// looked up). A remembered text is one a scan took as a member's whole value: the scan of an
// object or a list stops at its closing bracket whatever follows, and takes the same bytes the
// same way wherever they stand as a member's value, so a member whose text starts with a
// remembered one is that value. containerEnd only proposes where the value might end; the
// answer rests on the proposed text being exactly one that was scanned.
func (pl *Plain) seenAt(t string, i int) int {
	if i < 0 || len(pl.seen.texts) == 0 || len(t) < plainSeenMin || (t[0] != '{' && t[0] != '[') {
		return 0
	}
	n := containerEnd(t)
	if n < plainSeenMin {
		return 0
	}
	if _, ok := pl.seen.texts[t[:n]]; ok {
		return n
	}
	return 0
}

// plainSightings is how many texts' hashes Plain keeps to tell a text seen before.
const plainSightings = 256

// plainSeen is what Plain keeps of the texts it scanned (seenAt, remember).
type plainSeen struct {
	texts     map[string]struct{}    // copies of texts scanned (at least) twice
	sightings [plainSightings]uint64 // hashes of texts scanned once, by hash
	seed      maphash.Seed
}

// remember keeps a copy of v, a member's value a scan took, when it is a long object or list
// and the second text with its hash in a while (a text that never comes back, as a batch's
// intents, costs a hash and no copy). The copy: v shares its document's memory, which Plain
// must not keep alive. A hash only decides what is kept, never what is skipped.
func (pl *Plain) remember(v string) {
	if len(v) < plainSeenMin || (v[0] != '{' && v[0] != '[') {
		return
	}
	if pl.seen.texts == nil {
		pl.seen.texts = make(map[string]struct{})
		pl.seen.seed = maphash.MakeSeed()
	}
	h := maphash.String(pl.seen.seed, v)
	if slot := &pl.seen.sightings[h%plainSightings]; *slot != h {
		*slot = h
		return
	}
	if len(pl.seen.texts) >= plainSeenMax {
		clear(pl.seen.texts)
	}
	pl.seen.texts[strings.Clone(v)] = struct{}{}
}

// containerEnd is where the object or list at the start of t ends by its brackets alone,
// taking strings to have no escapes (as plain strings have none), or 0 when they do not
// close. It checks nothing else.
func containerEnd(t string) int {
	depth := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '"':
			j := strings.IndexByte(t[i+1:], '"')
			if j < 0 {
				return 0
			}
			i += j + 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return 0
}
