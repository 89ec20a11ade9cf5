package halt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// probePrefix starts the name of the files a watcher creates to prove its watches.
const probePrefix = ".halt-watch-probe-"

// defaultProbeTimeout bounds how long a watcher waits for its probe files to be reported.
const defaultProbeTimeout = 5 * time.Second

// Prove starts the file watcher and proves it before anything trades: it creates the sentinel
// directories, watches each, and creates a probe file in each, which the file watcher must
// report within ProbeTimeout. A watcher that cannot (the file watcher does not start, a
// directory cannot be made or watched, a probe is not reported) has set Latch, and tripped
// the global HALT when the disk allows, when Prove returns; Ready is closed either way. Run
// proves first when Prove was not called; Close releases the file watcher when Run never runs.
func (w *Watcher) Prove() {
	w.proveOnce.Do(func() {
		defer w.markReady()
		fw, err := newFileWatcher()
		if err != nil {
			w.fail(fmt.Errorf("start file watcher: %w", err))
			return
		}
		w.ensureWatches(fw, w.fail)
		if err := w.probe(fw); err != nil {
			w.fail(err)
		}
		w.mu.Lock()
		w.fw = fw
		w.mu.Unlock()
	})
}

// probe creates a probe file in every watched directory (one whose watch failed has latched
// already) and waits for the file watcher to report each. Other events it reads are not lost:
// Run's first evaluation and its poll read the sentinels and the directories again.
func (w *Watcher) probe(fw *fsnotify.Watcher) error {
	pending := map[string]bool{}
	defer func() {
		for name := range pending {
			os.Remove(name)
		}
	}()
	for _, d := range w.dirs() {
		if !w.isWatchedDir(d) {
			continue
		}
		f, err := os.CreateTemp(d, probePrefix+"*")
		if err != nil {
			return fmt.Errorf("probe %s: %w", d, err)
		}
		f.Close()
		pending[filepath.Clean(f.Name())] = true
	}
	if len(pending) == 0 {
		return nil
	}
	timeout := w.ProbeTimeout
	if timeout <= 0 {
		timeout = defaultProbeTimeout
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for len(pending) > 0 {
		select {
		case ev, ok := <-fw.Events:
			if !ok {
				return errors.New("file watcher closed")
			}
			if name := filepath.Clean(ev.Name); pending[name] && ev.Op&fsnotify.Create != 0 {
				delete(pending, name)
				os.Remove(name)
			}
		case err, ok := <-fw.Errors:
			if !ok {
				return errors.New("file watcher closed")
			}
			return err
		case <-timer.C:
			return unreported(pending)
		}
	}
	return nil
}

// unreported is the error of a proof whose deadline passed: the probe files not reported.
func unreported(pending map[string]bool) error {
	names := make([]string, 0, len(pending))
	for name := range pending {
		names = append(names, name)
	}
	sort.Strings(names)
	return fmt.Errorf("the file watcher reported no event for %s: it does not see changes there", strings.Join(names, ", "))
}

// takeFileWatcher hands over the file watcher Prove started (nil when it did not start, or
// was taken).
func (w *Watcher) takeFileWatcher() *fsnotify.Watcher {
	w.mu.Lock()
	defer w.mu.Unlock()
	fw := w.fw
	w.fw = nil
	return fw
}

// Close releases the file watcher Prove started when Run has not taken it.
func (w *Watcher) Close() error {
	if fw := w.takeFileWatcher(); fw != nil {
		return fw.Close()
	}
	return nil
}

// Ready is closed once Prove has returned: the watcher has proven it sees changes (a probe
// file created in each watched directory was reported by the file watcher) or has set Latch.
func (w *Watcher) Ready() <-chan struct{} { return w.readyChan() }

func (w *Watcher) readyChan() chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ready == nil {
		w.ready = make(chan struct{})
	}
	return w.ready
}

// markReady closes Ready (once).
func (w *Watcher) markReady() {
	ch := w.readyChan()
	w.readyOnce.Do(func() { close(ch) })
}
