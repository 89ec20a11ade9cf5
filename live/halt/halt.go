package halt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"cockpit/live"
	"cockpit/live/atomicfile"
	"cockpit/live/jsonv"
)

// Trip creates (or replaces) a sentinel atomically with {"tripped_at", "by", "reason"} and
// returns its path. Re-tripping overwrites the attribution; the latest wins. The sentinel is
// in place (and stops orders) before its fsync, and on disk when Trip returns nil; an error
// that wraps ErrNotDurable comes with the path of a sentinel that is in force all the same.
// A global HALT that cannot be written as a new file is the reserve renamed into place
// (EnsureReserve).
func Trip(root live.Root, s live.Sentinel, scope live.Scope, by, reason string, now time.Time) (string, error) {
	path, err := root.ScopedSentinelPath(s, scope)
	if err != nil {
		return "", err
	}
	doc := jsonv.ObjectOf("tripped_at", live.FormatOffsetTimestamp(now), "by", by, "reason", reason)
	data := jsonv.MustMarshal(doc, jsonv.Python)
	err = atomicfile.Publish(path, data, 0o644) // seen before its fsync: it only stops more
	if err != nil && !errors.Is(err, ErrNotDurable) && s == live.HaltSentinel && scope.Global {
		// No new file (a full disk, say): the reserve made at start is renamed into place.
		rerr := tripReserve(root, path, by, reason, now)
		if InForce(rerr) {
			err = rerr
		} else {
			err = fmt.Errorf("%w; %w", err, rerr)
		}
	}
	switch {
	case err == nil:
		return path, nil
	case errors.Is(err, ErrNotDurable):
		return path, fmt.Errorf("trip %s: %w", s, err)
	}
	return "", fmt.Errorf("trip %s: %w", s, err)
}

// ErrNotDurable is in a Trip's error when the sentinel is in place, and stops orders, but
// its fsync failed: a crash may lose it. Such a trip happened: callers audit it as one.
var ErrNotDurable = atomicfile.ErrNotDurable

// InForce reports whether a Trip that returned err left its sentinel in place: no error, or
// only ErrNotDurable.
func InForce(err error) bool { return err == nil || errors.Is(err, ErrNotDurable) }

// Clear deletes one sentinel and reports whether it existed. Global and per-broker sentinels
// are independent.
func Clear(root live.Root, s live.Sentinel, scope live.Scope) (bool, error) {
	path, err := root.ScopedSentinelPath(s, scope)
	if err != nil {
		return false, err
	}
	err = os.Remove(path)
	switch {
	case err == nil:
		atomicfile.SyncDir(filepath.Dir(path))
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("clear %s: %w", s, err)
}

// Attribution is what a sentinel file says about who tripped it. Fields absent from the file
// (or the whole content, when it is not a JSON object) are empty.
type Attribution struct {
	TrippedAt string
	By        string
	Reason    string
	Raw       *jsonv.Object // the file's JSON object; empty when the content is not one
}

// ReadSentinel returns the attribution of a sentinel, or nil when it does not exist.
// Unreadable or non-object content yields an empty attribution: the file still counts.
func ReadSentinel(root live.Root, s live.Sentinel, scope live.Scope) (*Attribution, error) {
	path, err := root.ScopedSentinelPath(s, scope)
	if err != nil {
		return nil, err
	}
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil // the name itself is absent (a dangling symlink is a sentinel)
	}
	data, err := os.ReadFile(path)
	a := &Attribution{Raw: jsonv.NewObject()}
	if err != nil {
		return a, nil // exists but unreadable: still a sentinel
	}
	if doc, err := jsonv.Parse(data, jsonv.Options{NonFinite: true}); err == nil {
		if o, ok := doc.(*jsonv.Object); ok {
			a.Raw = o
			a.TrippedAt = stringField(o, "tripped_at")
			a.By = stringField(o, "by")
			a.Reason = stringField(o, "reason")
		}
	}
	return a, nil
}

func stringField(o *jsonv.Object, key string) string {
	if v, ok := o.Get(key); ok {
		if s, ok := v.(string); ok {
			return s
		}
	}
	return ""
}

// sentinelSet reports whether a sentinel exists: the name, not what it points to (Lstat, so
// a dangling symlink halts). Any error other than "not found" counts as set (fail-closed).
func sentinelSet(path string) bool {
	_, err := os.Lstat(path)
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}

// IsGloballyHalted reports whether the global HALT sentinel is set.
func IsGloballyHalted(root live.Root) bool {
	return sentinelSet(root.SentinelPath(live.HaltSentinel, ""))
}

// ScopeSet reports whether the sentinel of exactly this scope exists (an unreadable one
// counts as set), without the global one a broker scope also obeys.
func ScopeSet(root live.Root, s live.Sentinel, scope live.Scope) bool {
	return sentinelSet(root.SentinelPath(s, scope.Broker))
}

// IsHalted reports whether trading on broker is halted: the global or the broker's HALT
// exists. An invalid broker key counts as halted.
func IsHalted(root live.Root, broker string) bool { return isSet(root, live.HaltSentinel, broker) }

// IsReduceOnly reports whether the global or the broker's REDUCE_ONLY sentinel exists. An
// invalid broker key counts as set.
func IsReduceOnly(root live.Root, broker string) bool {
	return isSet(root, live.ReduceOnlySentinel, broker)
}

func isSet(root live.Root, s live.Sentinel, broker string) bool {
	if sentinelSet(root.SentinelPath(s, "")) {
		return true
	}
	key, err := live.NormalizeBroker(broker)
	if err != nil {
		return true
	}
	return sentinelSet(root.SentinelPath(s, key))
}

// StateOf reads the trading state of a broker from its sentinels: HALT wins over REDUCE_ONLY.
func StateOf(root live.Root, broker string) live.TradingState {
	switch {
	case IsHalted(root, broker):
		return live.Halted
	case IsReduceOnly(root, broker):
		return live.ReduceOnly
	}
	return live.Active
}
