package counter

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"cockpit/live"
	"cockpit/live/atomicfile"
	"cockpit/live/jsonv"
	"cockpit/live/pystr"
)

// maxCount caps a day count read from disk, so a huge number denies instead of overflowing.
const maxCount = math.MaxInt32

// ReadDailyCount returns the number of orders forwarded today (UTC) on broker. The read fails
// open on the count only, as the reference does: a missing, unreadable or corrupt file, a file
// for another day, or a count that is not an integer reads as 0. A negative count also reads as
// 0 (the reference trusts it, which would allow extra orders). The count is advisory; the
// submit lock is what serialises forwards.
func ReadDailyCount(root live.Root, broker string, now time.Time) int {
	key, err := live.NormalizeBroker(broker)
	if err != nil {
		return 0
	}
	data, err := os.ReadFile(root.CounterPath(key))
	return referenceCount(data, err, now)
}

// referenceCount is ReadDailyCount of the file's bytes data (or the error reading it gave).
func referenceCount(data []byte, err error, now time.Time) int {
	if err != nil {
		return 0
	}
	doc, err := jsonv.Parse(data, jsonv.Options{NonFinite: true})
	if err != nil {
		return 0
	}
	o, ok := doc.(*jsonv.Object)
	if !ok {
		return 0
	}
	if d, _ := o.Get("date"); d != live.UTCDay(now) {
		return 0
	}
	raw, _ := o.Get("count")
	n, ok := pythonInt(raw)
	if !ok || n < 0 {
		return 0
	}
	return n
}

// pythonInt converts a JSON value the way Python's int() does for the counter: integers,
// truncated floats, booleans and integer strings (whitespace, sign and digit underscores
// allowed). Results beyond maxCount are clamped.
func pythonInt(v any) (int, bool) {
	switch t := v.(type) {
	case bool:
		if t {
			return 1, true
		}
		return 0, true
	case jsonv.Number:
		if !strings.ContainsAny(string(t), ".eE") {
			return clampBig(string(t))
		}
		f, ok := jsonv.ToFloat(t)
		if !ok || math.IsInf(f, 0) || math.IsNaN(f) {
			return 0, false
		}
		return clampFloat(math.Trunc(f)), true
	case string:
		s := pystr.Strip(t)
		if !pythonIntString(s) {
			return 0, false
		}
		return clampBig(strings.ReplaceAll(s, "_", ""))
	}
	return 0, false
}

// pythonIntString matches [+-]?\d+(_\d+)* (Python int() literal syntax, base 10).
func pythonIntString(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && s[i] != '_' {
			return false
		}
	}
	return true
}

func clampBig(s string) (int, bool) {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return 0, false
	}
	switch {
	case n.Cmp(big.NewInt(maxCount)) > 0:
		return maxCount, true
	case n.Cmp(big.NewInt(-maxCount)) < 0:
		return -maxCount, true
	}
	return int(n.Int64()), true
}

func clampFloat(f float64) int {
	switch {
	case f > maxCount:
		return maxCount
	case f < -maxCount:
		return -maxCount
	}
	return int(f)
}

// IncrementDailyCount adds one to today's count and writes it atomically; it returns the new
// count. Callers hold the broker's submit lock, and call it only after a confirmed forward.
func IncrementDailyCount(root live.Root, broker string, now time.Time) (int, error) {
	key, err := live.NormalizeBroker(broker)
	if err != nil {
		return 0, err
	}
	n := ReadDailyCount(root, key, now) + 1
	if n > maxCount {
		n = maxCount
	}
	data := []byte(`{"date": "` + live.UTCDay(now) + `", "count": ` + strconv.Itoa(n) + `}`)
	if err := atomicfile.WriteFile(root.CounterPath(key), data, 0o644); err != nil {
		return 0, fmt.Errorf("increment order count: %w", err)
	}
	return n, nil
}

// ErrLockBusy reports that another order submission on the same broker holds the submit lock.
var ErrLockBusy = errors.New("another order submission is already in progress")

// ErrLockUnavailable reports that the submit lock file could not be opened or locked.
var ErrLockUnavailable = errors.New("the order-submission lock is unavailable")

// SubmitLock is a held per-broker submit lock: the flock on the lock file, and one on the
// broker directory.
type SubmitLock struct{ f, dir *flock.Flock }

// lockAttempts bounds the retries when the lock file is replaced under us.
const lockAttempts = 8

// TrySubmitLock takes the broker's exclusive submit lock without waiting. Contention returns
// ErrLockBusy at once (fail-closed, never queued); any other failure ErrLockUnavailable. The
// lock serialises goroutines and processes on one host, and dies with its process.
//
// The lock is held on the file the path names: after flock succeeds the locked descriptor must
// still be the file at the path (a lock on a deleted or replaced file is released and the
// lock retried). Cockpit also flocks the broker directory, which cannot be deleted while it
// holds the mandate, so deleting the lock file while it is held cannot let a second cockpit
// process in.
func TrySubmitLock(root live.Root, broker string) (*SubmitLock, error) {
	key, err := live.NormalizeBroker(broker)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.EnsureDir(root.BrokerDir(key)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrLockUnavailable, err)
	}
	for range lockAttempts {
		f, err := tryFlock(flock.New(root.LockPath(key), flock.SetPermissions(0o600)), key)
		if err != nil {
			return nil, err
		}
		if !sameFileAtPath(f) {
			f.Unlock()
			f.Close()
			continue
		}
		dir, err := tryFlock(flock.New(root.BrokerDir(key), flock.SetFlag(os.O_RDONLY)), key)
		if err != nil {
			f.Unlock()
			f.Close()
			return nil, err
		}
		return &SubmitLock{f: f, dir: dir}, nil
	}
	return nil, fmt.Errorf("%w (%s): the lock file keeps being replaced", ErrLockUnavailable, key)
}

// tryFlock takes f without waiting; busy is ErrLockBusy, any other failure ErrLockUnavailable.
func tryFlock(f *flock.Flock, key string) (*flock.Flock, error) {
	ok, err := f.TryLock()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%w (%s): %v", ErrLockUnavailable, key, err)
	}
	if !ok {
		f.Close()
		return nil, fmt.Errorf("%w (%s)", ErrLockBusy, key)
	}
	return f, nil
}

// sameFileAtPath reports whether the locked descriptor is the file its path names now.
func sameFileAtPath(f *flock.Flock) bool {
	held, err := f.Stat() // fstat of the locked descriptor
	if err != nil {
		return false
	}
	named, err := os.Stat(f.Path())
	return err == nil && os.SameFile(held, named)
}

// Unlock releases the lock; the lock file stays on disk by design.
func (l *SubmitLock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Unlock()
	l.f.Close()
	l.f = nil
	if l.dir != nil {
		l.dir.Unlock()
		l.dir.Close()
		l.dir = nil
	}
	return err
}

// NoteBookChange records, in the broker's submit lock file, that an order which does not count
// against the day (a reduce-only close: a flatten's, an operator's) was sent: it writes a new
// generation over the file's content in place. Callers hold the submit lock. An order that
// read its book before and takes the lock after sees the lock file changed (the gate's day
// mark) and is checked again on the book as it is now.
func NoteBookChange(root live.Root, broker string, now time.Time) error {
	key, err := live.NormalizeBroker(broker)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(root.LockPath(key), os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("note a book change: %w", err)
	}
	gen := fmt.Sprintf("%020d\n", now.UnixNano()) // fixed width: a write never leaves old bytes behind
	_, err = f.WriteAt([]byte(gen), 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("note a book change: %w", err)
	}
	return nil
}
