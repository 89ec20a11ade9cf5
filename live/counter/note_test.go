package counter

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"cockpit/live/livetest"
)

// TestNoteDailyCountInPlace: the gate's count goes into the same file each time (no temporary
// file and rename per order, whose new inode and directory entries the next database fsync
// would have to commit), and reads back as written.
func TestNoteDailyCountInPlace(t *testing.T) {
	root := livetest.Root(t)
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	if err := NoteDailyCount(root, "paper", now, 9); err != nil {
		t.Fatal(err)
	}
	path := root.CounterPath("paper")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	ino := st.Sys().(*syscall.Stat_t).Ino
	for n := 10; n <= 12; n++ {
		if err := NoteDailyCount(root, "paper", now, n); err != nil {
			t.Fatal(err)
		}
		if got := ReadDailyCount(root, "paper", now); got != n {
			t.Errorf("after noting %d: ReadDailyCount got %d, want %d", n, got, n)
		}
	}
	st, err = os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Sys().(*syscall.Stat_t).Ino; got != ino {
		t.Errorf("counter file inode: got %d, want %d (written in place)", got, ino)
	}
	// A new day's shorter count leaves nothing of the old one behind.
	if err := NoteDailyCount(root, "paper", now.Add(24*time.Hour), 1); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if want := `{"date": "2026-06-02", "count": 1}`; string(data) != want {
		t.Errorf("next day: got %q, want %q", data, want)
	}
}

// TestNoteDailyCountReplacesALink: a symbolic link at the counter's path is replaced by a
// plain file, as WriteDailyCount would, and the file it pointed to is not written.
func TestNoteDailyCountReplacesALink(t *testing.T) {
	root := livetest.Root(t)
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	path := root.CounterPath("paper")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	if err := NoteDailyCount(root, "paper", now, 3); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(target); string(got) != "keep" {
		t.Errorf("link target: got %q, want %q untouched", got, "keep")
	}
	if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() {
		t.Errorf("counter path: got %v (%v), want a regular file", st, err)
	}
	if got := ReadDailyCount(root, "paper", now); got != 3 {
		t.Errorf("ReadDailyCount: got %d, want 3", got)
	}
}
