package halt

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"cockpit/internal/fanout"
	"cockpit/live"
)

// State is what the watcher knows about one broker.
type State struct {
	Broker     string
	Halted     bool // global HALT, the broker's HALT, or an unreadable sentinel path
	ReduceOnly bool
	Cause      string // "fsnotify", "poll", "start" or a watcher error
	At         time.Time
	Trip       uint64 // increases on every transition into HALTED
}

// Result is what a halt action reports: Flat says the broker was re-read afterwards and holds
// no resting orders and no positions (a flatten's report is one).
type Result interface{ Flat() bool }

// Action is what runs when a broker is halted.
type Action func(ctx context.Context, broker string) Result

// Actions maps a broker to what runs when it is halted; the "" entry is the fallback.
type Actions struct {
	mu      sync.Mutex
	actions map[string]Action
}

// Register sets the action for broker ("" for the fallback), replacing any previous one.
func (h *Actions) Register(broker string, fn Action) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.actions == nil {
		h.actions = map[string]Action{}
	}
	h.actions[broker] = fn
}

// Unregister removes an action and reports whether there was one.
func (h *Actions) Unregister(broker string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.actions[broker]
	delete(h.actions, broker)
	return ok
}

// Invoke runs the broker's action, else the fallback; ok is false when neither exists.
func (h *Actions) Invoke(ctx context.Context, broker string) (result Result, ok bool) {
	h.mu.Lock()
	fn, found := h.actions[broker]
	if !found {
		fn, found = h.actions[""]
	}
	h.mu.Unlock()
	if !found {
		return nil, false
	}
	return fn(ctx, broker), true
}

// Watcher turns the HALT and REDUCE_ONLY sentinels into events: fsnotify on the sentinel
// directories for speed, plus a stat poll (at most every second) for safety. When a broker
// becomes halted, its halt action runs once for that trip. It proves itself before anything
// trades (Prove: a probe file in each directory must be reported). A watcher that cannot
// watch (the file watcher fails, a directory cannot be watched or is removed, a probe is not
// reported) trips the global HALT (by "watcher") when the disk allows and sets Latch
// regardless, so an unknown state is a halt that needs an operator resume.
type Watcher struct {
	Root    live.Root
	Brokers []string      // normalised keys to watch
	Poll    time.Duration // default 500 ms, capped at 1 s
	Now     func() time.Time
	Actions *Actions
	// Latch is set when the watcher cannot watch; the gate and the screen read it too.
	Latch *Latch
	// OnSentinel, when set, sees every sentinel file appear or disappear after the start
	// (whoever did it), outside the watcher's lock.
	OnSentinel func(SentinelChange)
	// OnLatch, when set, sees the reason each time the watcher sets Latch.
	OnLatch func(reason string)
	// Start, when set, starts each halt action without blocking (the session runs it in its
	// wait group on its own context, so closing waits for it); nil starts a goroutine on
	// context.Background().
	Start func(action func(ctx context.Context))
	// ProbeTimeout bounds how long the start waits for the file watcher to report the probe
	// files (default 5 s); a probe not reported by then is a watcher failure.
	ProbeTimeout time.Duration

	proveOnce sync.Once
	readyOnce sync.Once
	ready     chan struct{}     // Ready
	fw        *fsnotify.Watcher // started by Prove, until Run (or Close) takes it
	mu        sync.Mutex
	subs      []chan State
	state     map[string]State
	trips     uint64
	files     map[string]bool // sentinel path → exists, from the last evaluation
	watched   map[string]bool // directories with a live fsnotify watch
}

// SentinelChange is one sentinel file appearing (Exists) or disappearing.
type SentinelChange struct {
	Sentinel live.Sentinel
	Scope    live.Scope
	Path     string
	Exists   bool
	At       time.Time
}

// Subscribe returns a channel of state changes (buffered; the watcher drops the oldest change
// for a subscriber that falls behind, never blocks). Subscribe before Run to see the start.
func (w *Watcher) Subscribe() <-chan State {
	ch := make(chan State, 64)
	w.mu.Lock()
	w.subs = append(w.subs, ch)
	w.mu.Unlock()
	return ch
}

// State returns the last known state of broker.
func (w *Watcher) State(broker string) (State, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, ok := w.state[broker]
	return s, ok
}

func (w *Watcher) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

// dirs are the directories the watcher watches: live/ and each broker's.
func (w *Watcher) dirs() []string {
	dirs := []string{w.Root.LiveDir()}
	for _, b := range w.Brokers {
		dirs = append(dirs, w.Root.BrokerDir(b))
	}
	return dirs
}

// Run watches until ctx ends. It proves the watches first (Prove, unless called already):
// the directories are watched before the sentinels are read, so a creation cannot fall
// between the two.
func (w *Watcher) Run(ctx context.Context) error {
	poll := w.Poll
	if poll <= 0 || poll > time.Second {
		poll = 500 * time.Millisecond
	}
	w.Prove()
	fw := w.takeFileWatcher()
	if fw == nil { // the file watcher did not start (Prove latched), or Close took it
		return w.pollOnly(ctx, poll)
	}
	defer fw.Close()
	w.evaluate("start")
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-fw.Events:
			if !ok {
				w.watcherFailed(fmt.Errorf("file watcher closed"))
				return w.pollOnly(ctx, poll)
			}
			if w.isWatchedDir(ev.Name) && ev.Op&(fsnotify.Remove|fsnotify.Rename) != 0 {
				w.lostWatch(ev.Name, fmt.Errorf("watched directory %s was removed", ev.Name))
			}
			if base := filepath.Base(ev.Name); base == string(live.HaltSentinel) || base == string(live.ReduceOnlySentinel) {
				w.evaluate("fsnotify")
			}
		case err, ok := <-fw.Errors:
			if !ok {
				w.watcherFailed(fmt.Errorf("file watcher closed"))
				return w.pollOnly(ctx, poll)
			}
			w.watcherFailed(err)
		case <-tick.C:
			w.checkWatches(fw)
			w.evaluate("poll")
		}
	}
}

// ensureWatches creates and watches every directory not watched yet; a failure is a watcher
// failure, given to failed.
func (w *Watcher) ensureWatches(fw *fsnotify.Watcher, failed func(error)) {
	for _, d := range w.dirs() {
		w.mu.Lock()
		done := w.watched[d]
		w.mu.Unlock()
		if done {
			continue
		}
		if err := os.MkdirAll(d, 0o700); err != nil {
			failed(fmt.Errorf("create %s: %w", d, err))
			continue
		}
		if err := addWatch(fw, d); err != nil {
			failed(fmt.Errorf("watch %s: %w", d, err))
			continue
		}
		w.mu.Lock()
		if w.watched == nil {
			w.watched = map[string]bool{}
		}
		w.watched[d] = true
		w.mu.Unlock()
	}
}

// checkWatches (each poll) drops the watch of a directory that is gone or replaced, a watcher
// failure, and re-adds missing watches.
func (w *Watcher) checkWatches(fw *fsnotify.Watcher) {
	for _, d := range w.dirs() {
		if !w.isWatchedDir(d) {
			continue
		}
		if fi, err := os.Lstat(d); err != nil || !fi.IsDir() {
			_ = fw.Remove(d)
			w.lostWatch(d, fmt.Errorf("watched directory %s is gone", d))
		}
	}
	w.ensureWatches(fw, w.watcherFailed)
}

func (w *Watcher) isWatchedDir(d string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.watched[filepath.Clean(d)]
}

// lostWatch forgets the watch on d and records the failure.
func (w *Watcher) lostWatch(d string, err error) {
	w.mu.Lock()
	delete(w.watched, filepath.Clean(d))
	w.mu.Unlock()
	w.watcherFailed(err)
}

func (w *Watcher) pollOnly(ctx context.Context, poll time.Duration) error {
	w.evaluate("poll")
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			w.evaluate("poll")
		}
	}
}

// watcherFailed records a halt (fail) and publishes it.
func (w *Watcher) watcherFailed(err error) {
	w.fail(err)
	w.evaluate("watcher error: " + err.Error())
}

// fail records a halt: not knowing is halted. The latch holds it in memory whatever the disk
// allows; the global HALT file records it when it can be written. Subscribers learn of it at
// the next evaluation (Prove's failures at Run's first).
func (w *Watcher) fail(err error) {
	why := "halt watcher error: " + err.Error()
	if w.Latch != nil && w.Latch.Set(why) && w.OnLatch != nil {
		w.OnLatch(why)
	}
	if !IsGloballyHalted(w.Root) {
		_, _ = Trip(w.Root, live.HaltSentinel, live.GlobalScope, "watcher", why, w.now())
	}
}

// sentinelScopes are the sentinel files the watcher reports on.
func (w *Watcher) sentinelScopes() []SentinelChange {
	var out []SentinelChange
	for _, sc := range append([]live.Scope{live.GlobalScope}, brokerScopes(w.Brokers)...) {
		for _, s := range []live.Sentinel{live.HaltSentinel, live.ReduceOnlySentinel} {
			p, err := w.Root.ScopedSentinelPath(s, sc)
			if err == nil {
				out = append(out, SentinelChange{Sentinel: s, Scope: sc, Path: p})
			}
		}
	}
	return out
}

func brokerScopes(brokers []string) []live.Scope {
	out := make([]live.Scope, len(brokers))
	for i, b := range brokers {
		out[i] = live.BrokerScope(b)
	}
	return out
}

// evaluate re-reads every broker's sentinels (and the latch) and publishes changes.
func (w *Watcher) evaluate(cause string) {
	now := w.now()
	var changed []State
	var tripped []string
	var files []SentinelChange
	latched, why := w.Latch.Halted()
	w.mu.Lock()
	if w.state == nil {
		w.state = map[string]State{}
	}
	first := w.files == nil
	if first {
		w.files = map[string]bool{}
	}
	for _, c := range w.sentinelScopes() {
		c.Exists, c.At = sentinelSet(c.Path), now
		if prev, seen := w.files[c.Path]; (seen || !first) && prev != c.Exists {
			files = append(files, c)
		}
		w.files[c.Path] = c.Exists
	}
	for _, b := range w.Brokers {
		s := State{Broker: b, Halted: IsHalted(w.Root, b) || latched, ReduceOnly: IsReduceOnly(w.Root, b), Cause: cause, At: now}
		if latched && !IsHalted(w.Root, b) {
			s.Cause = why
		}
		prev, seen := w.state[b]
		s.Trip = prev.Trip
		if s.Halted && (!seen || !prev.Halted) {
			w.trips++
			s.Trip = w.trips
			tripped = append(tripped, b)
		}
		if !seen || prev.Halted != s.Halted || prev.ReduceOnly != s.ReduceOnly {
			w.state[b] = s
			changed = append(changed, s)
		}
	}
	subs := append([]chan State(nil), w.subs...)
	w.mu.Unlock()
	if w.OnSentinel != nil {
		for _, c := range files {
			w.OnSentinel(c)
		}
	}
	for _, s := range changed {
		for _, ch := range subs {
			fanout.SendNewest(ch, s)
		}
	}
	if w.Actions != nil {
		for _, b := range tripped {
			action := func(ctx context.Context) { w.Actions.Invoke(ctx, b) }
			if w.Start != nil {
				w.Start(action)
			} else {
				go action(context.Background())
			}
		}
	}
}

// Recheck re-reads the sentinels and the latch now (after an operator's resume, say).
func (w *Watcher) Recheck() { w.evaluate("recheck") }
