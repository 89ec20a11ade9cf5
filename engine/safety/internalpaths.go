package safety

import (
	"sort"
	"strings"

	"cockpit/live/pystr"
)

// InternalRoots builds the root list RedactInternalPaths hides: each candidate in '/' and
// '\' spellings, entries of three characters or fewer dropped, longest first.
func InternalRoots(candidates ...string) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range candidates {
		for _, v := range []string{strings.ReplaceAll(c, `\`, "/"), strings.ReplaceAll(c, "/", `\`)} {
			if len(v) > 3 && !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// RedactInternalPaths replaces each occurrence of a root with "<redacted>" unless the next
// character continues a path component (a letter, digit or '_', or '-' or '.' followed by
// one), so error messages do not reveal where cockpit lives. Roots are applied longest
// first, each to the previous result.
func RedactInternalPaths(text string, roots []string) string {
	for _, root := range roots {
		var b strings.Builder
		rest := text
		for {
			i := strings.Index(rest, root)
			if i < 0 {
				b.WriteString(rest)
				break
			}
			after := rest[i+len(root):]
			b.WriteString(rest[:i])
			if continues(after) {
				b.WriteString(root)
			} else {
				b.WriteString("<redacted>")
			}
			rest = after
		}
		text = b.String()
	}
	return text
}

func continues(after string) bool {
	r, n := pystr.RuneAt(after, 0)
	switch {
	case r < 0:
		return false
	case pystr.IsWord(r):
		return true
	case r == '-' || r == '.':
		r2, _ := pystr.RuneAt(after, n)
		return r2 >= 0 && pystr.IsWord(r2)
	}
	return false
}
