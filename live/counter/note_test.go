package counter

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"cockpit/live/livetest"
)

// TestNoteDailyCountLeavesLinkedFilesAlone: a hard or symbolic link at the counter's path is
// replaced by the gate's own file; the file it shares or points to is never written.
func TestNoteDailyCountLeavesLinkedFilesAlone(t *testing.T) {
	tests := []struct {
		name string
		link func(target, path string) error
	}{
		{"hard link", os.Link},
		{"symbolic link", os.Symlink},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := livetest.Root(t)
			path := root.CounterPath("paper")
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(t.TempDir(), "elsewhere")
			if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := tt.link(target, path); err != nil {
				t.Fatal(err)
			}
			if err := NoteDailyCount(root, "paper", livetest.Epoch, 3); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(target); string(got) != "keep" {
				t.Errorf("linked file: got %q, want %q untouched", got, "keep")
			}
			if got := ReadDailyCount(root, "paper", livetest.Epoch); got != 3 {
				t.Errorf("ReadDailyCount: got %d, want 3", got)
			}
		})
	}
}

// TestNoteDailyCountNeverTorn: a reader that takes no lock (the TUI, `cockpit status`, a
// second process) sees every noted count whole while the gate writes it: never a count lower
// than one already seen (9 -> 10 half written reads as 1), never an unreadable file, and never
// one day's date with another's count across a rollover.
func TestNoteDailyCountNeverTorn(t *testing.T) {
	root := livetest.Root(t)
	day2 := livetest.Epoch.Add(24 * time.Hour)
	const writes = 1500
	if err := NoteDailyCount(root, "paper", livetest.Epoch, 1); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		for n := 1; n <= writes; n++ {
			if err := NoteDailyCount(root, "paper", livetest.Epoch, n); err != nil {
				t.Error(err)
				return
			}
		}
		// Rollover: the new day starts again from a short count.
		if err := NoteDailyCount(root, "paper", day2, 1); err != nil {
			t.Error(err)
		}
	}()
	seen := 0
	for reading := true; reading; {
		select {
		case <-done:
			reading = false
		default:
		}
		n, ok, why := counterFile(root, "paper", livetest.Epoch)
		switch {
		case !ok:
			t.Errorf("reader: counter unreadable mid-write (%s)", why)
			reading = false
		case n < seen && n != 0: // 0: the next day's file, read for the old day
			t.Errorf("reader: count went from %d down to %d (torn write)", seen, n)
			reading = false
		case n > seen:
			seen = n
		}
	}
	wg.Wait()
	if got := ReadDailyCount(root, "paper", day2); got != 1 {
		t.Errorf("after rollover: got %d, want 1", got)
	}
}
