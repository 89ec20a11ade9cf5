package tui

import "slices"

// alertGroup is identical alerts shown as one row: the newest of them and how many there are.
type alertGroup struct {
	last  Alert
	count int
}

// pinned reports whether an alert stays above the rest (info rows, stale data): anything
// critical (an injection finding, a rejection, a halt), a denial, an error, a start-up warning.
func pinned(a Alert) bool {
	return a.Level == levelCrit || a.Kind == "HALT" || a.Kind == "DENIED" || a.Kind == "ERROR" || a.Kind == "WARN"
}

// groupAlerts collapses identical alerts (same level, kind, source and text) into one row with
// a count, newest first, the pinned ones above the rest.
func groupAlerts(list []Alert) []alertGroup {
	type key struct {
		level           int
		kind, src, text string
		untrusted       bool
	}
	at := map[key]int{}
	var groups []alertGroup
	for i := len(list) - 1; i >= 0; i-- {
		a := list[i]
		k := key{a.Level, a.Kind, a.Source, a.Text, a.Untrusted}
		if j, ok := at[k]; ok {
			groups[j].count++
			continue
		}
		at[k] = len(groups)
		groups = append(groups, alertGroup{last: a, count: 1})
	}
	// Newest first by when it happened (an alert read from the trail may arrive after a newer
	// one raised on the screen).
	slices.SortStableFunc(groups, func(a, b alertGroup) int { return b.last.Time.Compare(a.last.Time) })
	out := make([]alertGroup, 0, len(groups))
	for _, g := range groups {
		if pinned(g.last) {
			out = append(out, g)
		}
	}
	for _, g := range groups {
		if !pinned(g.last) {
			out = append(out, g)
		}
	}
	return out
}
