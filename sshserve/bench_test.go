package sshserve

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/fsnotify/fsnotify"
)

// BenchmarkKeyToHaltFile: H typed by an SSH client on loopback → the HALT file on disk (the
// session's real backend behind the role guard, the screen's full key path). Each iteration
// removes the file first; p50 and p99 are reported over the iterations.
func BenchmarkKeyToHaltFile(b *testing.B) {
	r := newRig(b, nil)
	tm := r.screen("viewer")
	eventually(b, "the screen", func() bool { return strings.Contains(ansi.Strip(tm.out.String()), "PAPER") })
	path := r.haltFile()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := w.Add(filepath.Dir(path)); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			b.Fatal(err)
		}
		drain(w)
		b.StartTimer()
		start := time.Now()
		tm.press(b, "H")
		waitFile(b, w, path)
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) }
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
}

// drain discards queued watcher events.
func drain(w *fsnotify.Watcher) {
	for {
		select {
		case <-w.Events:
		default:
			return
		}
	}
}

// waitFile waits until path exists (a watcher event for it, then a stat).
func waitFile(b *testing.B, w *fsnotify.Watcher, path string) {
	deadline := time.After(20 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case <-w.Events:
		case err := <-w.Errors:
			b.Fatal(err)
		case <-deadline:
			b.Fatal("no HALT file")
		}
	}
}
