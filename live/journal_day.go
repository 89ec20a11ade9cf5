package live

import "time"

// UTCDay formats the UTC calendar day of t as YYYY-MM-DD.
func UTCDay(t time.Time) string { return t.UTC().Format("2006-01-02") }

// countsAgainstDay reports whether a journal entry is an order on broker, begun on now's
// UTC day, that counts against the daily limit: accepted, or not known to have been refused
// (indeterminate, or still submitting after a crash) — the broker may hold it, so it counts
// until reconciliation says otherwise. The operator's reduce-only orders do not count.
func countsAgainstDay(e *JournalEntry, broker string, now time.Time) bool {
	return JournalMayHold(e.State) && e.Broker == broker && !e.Request.ReduceOnly &&
		UTCDay(e.Created) == UTCDay(now)
}

// JournalMayHold reports whether an order in state s may be at the broker: accepted, or
// its outcome unknown (indeterminate, submitting). Only a refusal frees its count.
func JournalMayHold(s JournalState) bool {
	return s == JournalAccepted || s == JournalIndeterminate || s == JournalSubmitting
}

// DayBounds returns the start and end (exclusive) of t's UTC calendar day.
func DayBounds(t time.Time) (time.Time, time.Time) {
	u := t.UTC()
	start := time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC)
	return start, start.AddDate(0, 0, 1)
}
