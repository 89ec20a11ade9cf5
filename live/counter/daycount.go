package counter

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"time"

	"cockpit/live"
	"cockpit/live/atomicfile"
	"cockpit/live/jsonv"
)

// counterFile reads today's count from the counter file the way ReadDailyCount does, but says
// whether the file could be read at all: a missing, unreadable or corrupt file, or a count
// that is not a non-negative integer, is not ok. A well-formed file for another day is ok (0).
func counterFile(root live.Root, key string, now time.Time) (n int, ok bool, why string) {
	data, err := os.ReadFile(root.CounterPath(key))
	return fileCount(data, err, now)
}

// fileCount is counterFile of the file's bytes data (or the error reading it gave).
func fileCount(data []byte, err error, now time.Time) (n int, ok bool, why string) {
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
	if d != live.UTCDay(now) {
		return 0, true, ""
	}
	return c, true, ""
}

// DailyCount is the gate's count of orders forwarded today (UTC) on broker (DV14): the larger
// of the counter file (read as ReadDailyCount reads it) and the journal's accepted orders for
// that broker and day, so a deleted, rewritten or stale counter cannot lower it, and an order
// reconciled as accepted is counted. When neither source can be read the result is a denial.
func DailyCount(ctx context.Context, root live.Root, j live.Journal, broker string, now time.Time) (int, *live.Denial) {
	key, err := live.NormalizeBroker(broker)
	if err != nil {
		return 0, live.NewDenial(live.ReasonInvalidBroker, "broker", broker)
	}
	return ReadSources(ctx, root, j, key, now).Count(key, now)
}

// Sources is what today's count is made of, as read once: the counter file's bytes (or the
// error reading it) and the journal's accepted orders (or its error).
type Sources struct {
	File       []byte
	FileErr    error
	Journaled  int
	JournalErr error
}

// errNoJournal is the journal's part of Sources when no journal is attached.
var errNoJournal = errors.New("no journal attached")

// ReadSources reads the counter file of broker key and the journal's accepted orders today.
func ReadSources(ctx context.Context, root live.Root, j live.Journal, key string, now time.Time) Sources {
	var s Sources
	s.File, s.FileErr = os.ReadFile(root.CounterPath(key))
	s.JournalErr = errNoJournal
	if j != nil {
		s.Journaled, s.JournalErr = j.AcceptedOrders(ctx, key, now)
	}
	return s
}

// Count is DailyCount of what s read, for broker key.
func (s Sources) Count(key string, now time.Time) (int, *live.Denial) {
	file, fileOK, why := fileCount(s.File, s.FileErr, now)
	if !fileOK {
		file = referenceCount(s.File, s.FileErr, now) // the reference's reading: 0
	}
	if s.JournalErr != nil {
		if !fileOK {
			return 0, live.NewDenial(live.ReasonCountUnavailable, "broker", key, "counter", why, "journal", s.JournalErr.Error())
		}
		return file, nil
	}
	return max(file, s.Journaled), nil
}

// WriteDailyCount records n as today's count for broker, atomically. Callers hold the
// broker's submit lock.
func WriteDailyCount(root live.Root, broker string, now time.Time, n int) error {
	key, err := live.NormalizeBroker(broker)
	if err != nil {
		return err
	}
	n = min(max(n, 0), maxCount)
	data := []byte(`{"date": "` + live.UTCDay(now) + `", "count": ` + strconv.Itoa(n) + `}`)
	if err := atomicfile.WriteFile(root.CounterPath(key), data, 0o644); err != nil {
		return fmt.Errorf("write order count: %w", err)
	}
	return nil
}

// NoteDailyCount records n as today's count for broker like WriteDailyCount, but without
// fsync: for the gate, whose count's source of truth is the durable order journal (DV14), so
// a crash that loses this write loses nothing the gate relies on. Callers hold the broker's
// submit lock.
func NoteDailyCount(root live.Root, broker string, now time.Time, n int) error {
	key, err := live.NormalizeBroker(broker)
	if err != nil {
		return err
	}
	n = min(max(n, 0), maxCount)
	data := []byte(`{"date": "` + live.UTCDay(now) + `", "count": ` + strconv.Itoa(n) + `}`)
	if err := atomicfile.Replace(root.CounterPath(key), data, 0o644); err != nil {
		return fmt.Errorf("write order count: %w", err)
	}
	return nil
}
