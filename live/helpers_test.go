package live

import (
	"testing"
	"time"
)

var testNow = time.Date(2026, 6, 1, 15, 0, 0, 0, time.UTC)

func mustRoot(t *testing.T) Root {
	t.Helper()
	r, err := NewRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return r
}
