package live

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"time"

	"cockpit/live/atomicfile"
	"cockpit/live/jsonv"
)

// ReasonCountUnavailable denies an order when neither the counter file nor the order journal
// can tell how many orders were forwarded today (DV14).
const ReasonCountUnavailable Reason = "count_unavailable"

// counterFile reads today's count from the counter file the way ReadDailyCount does, but says
// whether the file could be read at all: a missing, unreadable or corrupt file, or a count
// that is not a non-negative integer, is not ok. A well-formed file for another day is ok (0).
func counterFile(root Root, key string, now time.Time) (n int, ok bool, why string) {
	data, err := os.ReadFile(root.CounterPath(key))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0, false, "counter file missing"
	case err != nil:
		return 0, false, "counter file unreadable: " + err.Error()
	}
	doc, err := jsonv.Parse(data, jsonv.Options{NonFinite: true})
	if err != nil {
		return 0, false, "counter file corrupt"
	}
	o, isObj := doc.(*jsonv.Object)
	if !isObj {
		return 0, false, "counter file is not an object"
	}
	d, _ := o.Get("date")
	if _, isStr := d.(string); !isStr {
		return 0, false, "counter file has no date"
	}
	raw, _ := o.Get("count")
	c, isInt := pythonInt(raw)
	if !isInt || c < 0 {
		return 0, false, "counter file count is not a count"
	}
	if d != UTCDay(now) {
		return 0, true, ""
	}
	return c, true, ""
}

// DailyCount is the gate's count of orders forwarded today (UTC) on broker (DV14): the larger
// of the counter file (read as ReadDailyCount reads it) and the journal's accepted orders for
// that broker and day, so a deleted, rewritten or stale counter cannot lower it, and an order
// reconciled as accepted is counted. When neither source can be read the result is a denial.
func DailyCount(ctx context.Context, root Root, j Journal, broker string, now time.Time) (int, *Denial) {
	key, err := NormalizeBroker(broker)
	if err != nil {
		return 0, NewDenial(ReasonInvalidBroker, "broker", broker)
	}
	file, fileOK, why := counterFile(root, key, now)
	if !fileOK {
		file = ReadDailyCount(root, key, now) // the reference's reading: 0
	}
	var journaled int
	jerr := errors.New("no journal attached")
	if j != nil {
		journaled, jerr = j.AcceptedOrders(ctx, key, now)
	}
	if jerr != nil {
		if !fileOK {
			return 0, NewDenial(ReasonCountUnavailable, "broker", key, "counter", why, "journal", jerr.Error())
		}
		return file, nil
	}
	return max(file, journaled), nil
}

// WriteDailyCount records n as today's count for broker, atomically. Callers hold the
// broker's submit lock.
func WriteDailyCount(root Root, broker string, now time.Time, n int) error {
	key, err := NormalizeBroker(broker)
	if err != nil {
		return err
	}
	n = min(max(n, 0), maxCount)
	data := []byte(`{"date": "` + UTCDay(now) + `", "count": ` + strconv.Itoa(n) + `}`)
	if err := atomicfile.WriteFile(root.CounterPath(key), data, 0o644); err != nil {
		return fmt.Errorf("write order count: %w", err)
	}
	return nil
}

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
