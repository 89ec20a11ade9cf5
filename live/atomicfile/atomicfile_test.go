package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestPublishVisibleBeforeFsync: Publish's file is in place when its fsync runs (WriteFile's
// is not yet), and both leave the content and no temporary file.
func TestPublishVisibleBeforeFsync(t *testing.T) {
	tests := []struct {
		name        string
		write       func(string, []byte, os.FileMode) error
		wantVisible bool
	}{
		{"Publish", Publish, true},
		{"WriteFile", WriteFile, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "live", "HALT")
			syncs, visible := 0, false
			defer setSync(func(f *os.File) error {
				syncs++
				_, err := os.Stat(path)
				visible = err == nil
				return f.Sync()
			})()
			if err := tt.write(path, []byte(`{"by": "me"}`), 0o644); err != nil {
				t.Fatal(err)
			}
			if syncs != 1 || visible != tt.wantVisible {
				t.Errorf("fsyncs %d, file visible at the fsync %v; want 1, %v", syncs, visible, tt.wantVisible)
			}
			if got, err := os.ReadFile(path); err != nil || string(got) != `{"by": "me"}` {
				t.Errorf("content: got %q (%v)", got, err)
			}
			if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
				t.Errorf("directory holds %d entries, want 1", len(entries))
			}
		})
	}
}

// TestPublishFailedFsync: the file stays in place (it already halts) and the error says it
// may not be on disk.
func TestPublishFailedFsync(t *testing.T) {
	path := filepath.Join(t.TempDir(), "HALT")
	defer FailSyncs(syscall.EIO)()
	err := Publish(path, []byte("x"), 0o644)
	if err == nil || !strings.Contains(err.Error(), "not known to be on disk") {
		t.Errorf("error: got %v, want one saying the file may not be on disk", err)
	}
	if _, serr := os.Stat(path); serr != nil {
		t.Errorf("file: got %v, want it in place", serr)
	}
}

// TestFailWritesIsAFullDisk: under FailWrites every writer fails with the error, keeps the
// file it would have replaced, and leaves no temporary file behind.
func TestFailWritesIsAFullDisk(t *testing.T) {
	tests := []struct {
		name  string
		write func(string, []byte, os.FileMode) error
	}{
		{"WriteFile", WriteFile},
		{"Publish", Publish},
		{"Replace", Replace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "trade_counter.json")
			if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			restore := FailWrites(syscall.ENOSPC)
			err := tt.write(path, []byte("new"), 0o600)
			restore()
			if err == nil || !strings.Contains(err.Error(), "no space left on device") {
				t.Errorf("error: got %v, want one saying no space left", err)
			}
			if got, _ := os.ReadFile(path); string(got) != "old" {
				t.Errorf("content: got %q, want the old file", got)
			}
			if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
				t.Errorf("directory holds %d entries, want 1", len(entries))
			}
		})
	}
}
