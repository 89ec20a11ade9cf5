package atomicfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// TestReplaceSwapsInTheNewFile: over an existing file, a missing one, and a directory (refused,
// left where it was); the old file a reader holds open keeps its content; no temporary file
// is left behind.
func TestReplaceSwapsInTheNewFile(t *testing.T) {
	tests := []struct {
		name    string
		before  func(path string) error
		wantErr bool
	}{
		{"existing file", func(p string) error { return os.WriteFile(p, []byte("old content"), 0o600) }, false},
		{"no file", func(string) error { return nil }, false},
		{"directory", func(p string) error { return os.Mkdir(p, 0o700) }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "trade_counter.json")
			if err := tt.before(path); err != nil {
				t.Fatal(err)
			}
			held, _ := os.Open(path)
			err := Replace(path, []byte("new"), 0o644)
			if got := err != nil; got != tt.wantErr {
				t.Fatalf("error: got %v, want error %v", err, tt.wantErr)
			}
			fi, serr := os.Stat(path)
			if serr != nil {
				t.Fatalf("stat: %v", serr)
			}
			if tt.wantErr {
				if !fi.IsDir() {
					t.Errorf("path: got mode %v, want the directory still there", fi.Mode())
				}
			} else {
				if got, _ := os.ReadFile(path); string(got) != "new" {
					t.Errorf("content: got %q, want %q", got, "new")
				}
				if got := fi.Mode().Perm(); got != 0o644 {
					t.Errorf("mode: got %v, want 0644", got)
				}
			}
			if held != nil && !tt.wantErr && tt.name == "existing file" {
				var buf [64]byte
				n, _ := held.ReadAt(buf[:], 0)
				if got := string(buf[:n]); got != "old content" {
					t.Errorf("old file read through its open descriptor: got %q, want %q", got, "old content")
				}
			}
			if held != nil {
				held.Close()
			}
			if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
				t.Errorf("directory holds %d entries, want 1", len(entries))
			}
		})
	}
}

// TestReplaceNeverShowsATornOrMissingFile: a reader racing Replace writes of two lengths sees
// one of the two contents every time, never a partial file and never no file.
func TestReplaceNeverShowsATornOrMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trade_counter.json")
	contents := [][]byte{[]byte(`{"date": "2026-12-03", "count": 9}`), []byte(`{"date": "2026-12-04", "count": 12345}`)}
	if err := os.WriteFile(path, contents[0], 0o644); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	var bad atomic.Value
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			got, err := os.ReadFile(path)
			if err != nil || (!bytes.Equal(got, contents[0]) && !bytes.Equal(got, contents[1])) {
				bad.Store("read " + strconv.Quote(string(got)) + " err " + strconv.Quote(errString(err)))
				return
			}
		}
	}()
	for i := range 2000 {
		if err := Replace(path, contents[i%2], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	if b := bad.Load(); b != nil {
		t.Errorf("a reader saw %s, want one of the two contents", b)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
