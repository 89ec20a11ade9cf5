package halt

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"cockpit/live"
	"cockpit/live/atomicfile"
	"cockpit/live/jsonv"
)

// ReserveName is the spare global HALT file, live/.HALT.reserve: created ahead of time with
// its blocks written, it is what a trip of the global HALT renames into place when the disk
// has no room for a new file (a rename needs no new block), so a halt tripped on a full disk
// is still on disk at the next start.
const ReserveName = ".HALT.reserve"

// reserveSize is the reserve's size: one block, room for any attribution.
const reserveSize = 4096

// ReservePath returns <root>/live/.HALT.reserve.
func ReservePath(root live.Root) string { return filepath.Join(root.LiveDir(), ReserveName) }

// EnsureReserve creates the reserve when it is not there (not a regular file of its size):
// a session does it at start and after a resume.
func EnsureReserve(root live.Root) error {
	path := ReservePath(root)
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && fi.Size() == reserveSize {
		return nil
	}
	doc := reserveDoc("", "cockpit", "tripped from the reserve HALT file: the disk had no room for a new one")
	if err := atomicfile.WriteFile(path, doc, 0o644); err != nil {
		return fmt.Errorf("the reserve HALT file: %w", err)
	}
	return nil
}

// tripReserve renames the reserve over the global HALT at path, its attribution written into
// the reserve's blocks first when the file system allows.
func tripReserve(root live.Root, path, by, reason string, now time.Time) error {
	reserve := ReservePath(root)
	if fi, err := os.Lstat(reserve); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("no reserve HALT file at %s (a session creates it at start)", reserve)
	}
	return atomicfile.PublishReserve(reserve, path, reserveDoc(live.FormatOffsetTimestamp(now), by, reason))
}

// reserveDoc is a sentinel's JSON padded with spaces to the reserve's size (the reason cut
// to fit), ending in a newline.
func reserveDoc(trippedAt, by, reason string) []byte {
	r := []rune(reason)
	for {
		doc := jsonv.ObjectOf("tripped_at", trippedAt, "by", by, "reason", string(r))
		data := jsonv.MustMarshal(doc, jsonv.Python)
		if len(data) < reserveSize || len(r) == 0 {
			pad := max(reserveSize-len(data)-1, 0)
			return append(append(data, bytes.Repeat([]byte(" "), pad)...), '\n')
		}
		r = r[:len(r)*3/4]
	}
}
