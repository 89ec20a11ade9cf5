package counter

import (
	"testing"
	"time"

	"cockpit/live"
)

var testNow = time.Date(2026, 6, 1, 15, 0, 0, 0, time.UTC)

func mustRoot(t *testing.T) live.Root {
	t.Helper()
	r, err := live.NewRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return r
}
