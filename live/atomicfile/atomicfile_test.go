package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	st, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Sys().(*syscall.Stat_t).Ino
}

func TestOverwrite(t *testing.T) {
	tests := []struct {
		name, old, data string
	}{
		{"missing", "", `{"date": "2026-12-01", "count": 1}`},
		{"same length", `{"date": "2026-12-01", "count": 1}`, `{"date": "2026-12-01", "count": 2}`},
		{"longer", `{"date": "2026-12-01", "count": 9}`, `{"date": "2026-12-01", "count": 10}`},
		{"shorter", `{"date": "2026-12-01", "count": 1234}`, `{"date": "2026-12-02", "count": 1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sub", "trade_counter.json")
			var ino uint64
			if tt.old != "" {
				if err := EnsureDir(filepath.Dir(path)); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(tt.old), 0o600); err != nil {
					t.Fatal(err)
				}
				ino = inode(t, path)
			}
			if err := Overwrite(path, []byte(tt.data), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.data {
				t.Errorf("content: got %q, want %q", got, tt.data)
			}
			if ino != 0 && inode(t, path) != ino {
				t.Errorf("inode: got a new file, want the same one written in place")
			}
			if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
				t.Errorf("directory holds %d entries, want only the file (no temporary left)", len(entries))
			}
		})
	}
}

// TestOverwriteRefusesWhatIsNotAFile: a link is not followed (its target is untouched) and a
// FIFO is not opened for a blocking write; both are errors, so the caller can replace them.
func TestOverwriteRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := Overwrite(link, []byte("new"), 0o644); err == nil {
		t.Errorf("Overwrite through a symbolic link: got nil error, want one")
	}
	if got, _ := os.ReadFile(target); string(got) != "keep" {
		t.Errorf("link target: got %q, want %q untouched", got, "keep")
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	if err := Overwrite(fifo, []byte("new"), 0o644); err == nil {
		t.Errorf("Overwrite of a FIFO: got nil error, want one")
	}
}

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
			syncFile = func(f *os.File) error {
				syncs++
				_, err := os.Stat(path)
				visible = err == nil
				return f.Sync()
			}
			defer func() { syncFile = (*os.File).Sync }()
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
	syncFile = func(*os.File) error { return syscall.EIO }
	defer func() { syncFile = (*os.File).Sync }()
	err := Publish(path, []byte("x"), 0o644)
	if err == nil || !strings.Contains(err.Error(), "not known to be on disk") {
		t.Errorf("error: got %v, want one saying the file may not be on disk", err)
	}
	if _, serr := os.Stat(path); serr != nil {
		t.Errorf("file: got %v, want it in place", serr)
	}
}
