package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestPublishReportsAnUnsyncedDirectory: what must survive a crash for a sentinel is the
// directory entry its rename made (an empty HALT still halts), so a directory fsync that
// fails makes Publish's error ErrNotDurable (it was dropped, and Trip said "on disk"). Here
// the directory cannot be opened for its fsync (moved away from under Publish by the
// file-sync hook); an EIO from the directory's fsync takes the same path.
func TestPublishReportsAnUnsyncedDirectory(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "live")
	path := filepath.Join(dir, "HALT")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	restore := setSync(func(f *os.File) error {
		if err := os.Rename(dir, dir+".away"); err != nil {
			return err
		}
		return f.Sync()
	})
	err := Publish(path, []byte(`{"by": "cli"}`), 0o644)
	restore()
	if _, serr := os.Stat(filepath.Join(dir+".away", "HALT")); serr != nil {
		t.Fatalf("setup: the file was not renamed into place: %v (%v)", serr, err)
	}
	if !errors.Is(err, ErrNotDurable) {
		t.Errorf("Publish whose directory was never fsynced: got %v, want an error that is ErrNotDurable", err)
	}
}
