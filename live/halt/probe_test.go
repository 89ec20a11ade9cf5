package halt_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/live/livetest"
)

// probesLeft lists the probe files left in the watched directories.
func probesLeft(t *testing.T, root live.Root) []string {
	t.Helper()
	var left []string
	for _, d := range []string{root.LiveDir(), root.BrokerDir("paper")} {
		matches, _ := filepath.Glob(filepath.Join(d, ".halt-watch-probe-*"))
		left = append(left, matches...)
	}
	return left
}

// TestWatcherReady: Ready closes once the watches are proven, with the latch as each case
// wants it, the global HALT written by the watcher when it is set, and no probe file left.
func TestWatcherReady(t *testing.T) {
	tests := []struct {
		name       string
		fault      func() (restore func())
		wantLatch  string // "" = not set
		wantHalted bool
	}{
		{"OK", func() func() { return func() {} }, "", false},
		{"ErrWatchFails", func() func() {
			return halt.FailWatches(func(string) error { return errors.New("permission denied") })
		}, "permission denied", true},
		{"ErrWatchSilent", halt.SilenceWatches, "reported no event", true},
		{"ErrNoInotify", func() func() {
			return halt.FailFileWatcher(errors.New("too many open files"))
		}, "start file watcher: too many open files", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := livetest.Root(t)
			latch := &halt.Latch{}
			w := &halt.Watcher{Root: root, Brokers: []string{"paper"}, Latch: latch, ProbeTimeout: 100 * time.Millisecond}
			defer tt.fault()()
			w.Prove()
			defer w.Close()
			select {
			case <-w.Ready():
			default:
				t.Fatal("Prove returned with Ready open")
			}
			on, why := latch.Halted()
			if got, want := on, tt.wantLatch != ""; got != want || !strings.Contains(why, tt.wantLatch) {
				t.Errorf("latch at Ready: %v %q, want set %v with %q", on, why, want, tt.wantLatch)
			}
			if got := halt.IsGloballyHalted(root); got != tt.wantHalted {
				t.Errorf("global HALT: %v, want %v", got, tt.wantHalted)
			}
			if left := probesLeft(t, root); len(left) != 0 {
				t.Errorf("probe files left: %v", left)
			}
		})
	}
}

// TestWatcherUnwatchableDirectory: a directory that cannot be made or watched (a
// regular file where live/paper should be) latches before Ready.
func TestWatcherUnwatchableDirectory(t *testing.T) {
	root := livetest.Root(t)
	if err := os.MkdirAll(root.LiveDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(root.BrokerDir("paper"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	latch := &halt.Latch{}
	w := &halt.Watcher{Root: root, Brokers: []string{"paper"}, Latch: latch}
	w.Prove()
	defer w.Close()
	if on, _ := latch.Halted(); !on {
		t.Fatal("Ready closed with the latch unset, though live/paper cannot be watched")
	}
}

// BenchmarkWatcherProve is what proving the watcher adds to a session's start: the file
// watcher started, two directories watched, a probe file created and reported in each. The
// file watcher's Close (7-15 ms with events unread; a session closes it once, at the end) is
// left out.
func BenchmarkWatcherProve(b *testing.B) {
	root := livetest.Root(b)
	for b.Loop() {
		latch := &halt.Latch{}
		w := &halt.Watcher{Root: root, Brokers: []string{"paper"}, Latch: latch}
		w.Prove()
		b.StopTimer()
		w.Close()
		if on, why := latch.Halted(); on {
			b.Fatal(why)
		}
		b.StartTimer()
	}
}
