package counter

import (
	"time"

	"cockpit/live"
)

// FileStatus reads broker's counter file as ReadDailyCount does and says whether it could be
// read: a missing, unreadable or corrupt file, or a count that is not a non-negative integer,
// is not ok (why says which), though the reference then counts 0 orders today (D2).
func FileStatus(root live.Root, broker string, now time.Time) (n int, ok bool, why string) {
	key, err := live.NormalizeBroker(broker)
	if err != nil {
		return 0, false, err.Error()
	}
	return counterFile(root, key, now)
}
