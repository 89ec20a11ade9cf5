package jsonv

// MapValues returns a new object with o's keys in o's order and f's value for each member:
// one allocation for the members, where Set one by one would grow them and index them.
func MapValues(o *Object, f func(Member) any) *Object {
	ms := o.Members()
	out := &Object{members: make([]Member, len(ms))}
	for i, m := range ms {
		out.members[i] = Member{m.Key, f(m)}
	}
	if len(ms) > smallObject { // as the parser leaves it: an index past smallObject members
		out.index = make(map[string]int, len(ms))
		for i, m := range ms {
			out.index[m.Key] = i
		}
	}
	return out
}

// Append is Marshal appending to dst.
func Append(dst []byte, v any, style Style) ([]byte, error) {
	return appendValue(dst, v, style)
}
