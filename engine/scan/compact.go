package scan

// groupRule is the rule that reads each word group.
var groupRule = func() (t [nGroups]int) {
	for rule, gs := range [5][]int{
		{gOverrideVerb, gOverrideWhat, gOverrideObj},
		{gRevealVerb, gRevealWhat, gRevealObj},
		{gRoleHead, gYouAreNow, gRoleWord},
		{gSecretVerb, gSecretWhat},
		{gToolVerb, gToolWhat},
	} {
		for _, g := range gs {
			t[bitIndex(g)] = rule
		}
	}
	return t
}()

// compact drops the hits no undecided rule can read again, so the hit lists stay the size of
// the undecided window instead of growing with the input. A decided rule's groups are
// emptied (add no longer fills them). For an undecided rule, the hits before its next verb
// (or head, or phrase) are dead, and so is every later-group hit that starts before that
// verb: a verb only reads words that start at or after its end.
func (sc *scanner) compact() {
	for g := range sc.by {
		if sc.done[groupRule[g]] {
			sc.by[g] = sc.by[g][:0]
		}
	}
	type chain struct{ rule, verb, what, obj int }
	for _, c := range []chain{
		{0, bitIndex(gOverrideVerb), bitIndex(gOverrideWhat), bitIndex(gOverrideObj)},
		{1, bitIndex(gRevealVerb), bitIndex(gRevealWhat), bitIndex(gRevealObj)},
		{2, bitIndex(gYouAreNow), bitIndex(gRoleWord), -1},
		{3, bitIndex(gSecretVerb), bitIndex(gSecretWhat), -1},
		{4, bitIndex(gToolVerb), bitIndex(gToolWhat), -1},
	} {
		if sc.done[c.rule] {
			continue
		}
		verbs := sc.by[c.verb]
		k := sc.next[c.rule]
		wm := sc.ri // every verb not read yet starts at or after ri
		if k < len(verbs) {
			wm = int(verbs[k].sr)
		}
		if sc.drop(c.verb, k) {
			sc.next[c.rule] = 0
		}
		sc.drop(c.what, upper(sc.by[c.what], wm-1))
		if c.obj >= 0 {
			sc.drop(c.obj, upper(sc.by[c.obj], wm-1))
		}
	}
	if !sc.done[2] && sc.drop(bitIndex(gRoleHead), sc.roleA) {
		sc.roleA = 0
	}
}

// drop removes the first n hits of group g when they are at least half of it (so the copying
// stays linear overall); it reports whether it did.
func (sc *scanner) drop(g, n int) bool {
	hs := sc.by[g]
	if n == 0 || 2*n < len(hs) {
		return false
	}
	sc.by[g] = hs[:copy(hs, hs[n:])]
	return true
}
