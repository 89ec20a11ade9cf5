package live

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"cockpit/internal/fanout"
)

// HaltState is what the watcher knows about one broker.
type HaltState struct {
	Broker     string
	Halted     bool // global HALT, the broker's HALT, or an unreadable sentinel path
	ReduceOnly bool
	Cause      string // "fsnotify", "poll", "start" or a watcher error
	At         time.Time
	Trip       uint64 // increases on every transition into HALTED
}

// HaltActions maps a broker to what runs when it is halted; the "" entry is the fallback.
type HaltActions struct {
	mu      sync.Mutex
	actions map[string]func(ctx context.Context, broker string) any
}

// Register sets the action for broker ("" for the fallback), replacing any previous one.
func (h *HaltActions) Register(broker string, fn func(ctx context.Context, broker string) any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.actions == nil {
		h.actions = map[string]func(context.Context, string) any{}
	}
	h.actions[broker] = fn
}

// Unregister removes an action and reports whether there was one.
func (h *HaltActions) Unregister(broker string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.actions[broker]
	delete(h.actions, broker)
	return ok
}

// Invoke runs the broker's action, else the fallback; ok is false when neither exists.
func (h *HaltActions) Invoke(ctx context.Context, broker string) (result any, ok bool) {
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
// becomes halted, its halt action runs once for that trip. A watcher error trips the global
// HALT (by "watcher"), so an unknown state is a recorded halt that needs an operator resume.
type Watcher struct {
	Root    Root
	Brokers []string      // normalised keys to watch
	Poll    time.Duration // default 500 ms, capped at 1 s
	Now     func() time.Time
	Actions *HaltActions

	mu    sync.Mutex
	subs  []chan HaltState
	state map[string]HaltState
	trips uint64
}

// Subscribe returns a channel of state changes (buffered; the watcher drops the oldest change
// for a subscriber that falls behind, never blocks). Subscribe before Run to see the start.
func (w *Watcher) Subscribe() <-chan HaltState {
	ch := make(chan HaltState, 64)
	w.mu.Lock()
	w.subs = append(w.subs, ch)
	w.mu.Unlock()
	return ch
}

// State returns the last known state of broker.
func (w *Watcher) State(broker string) (HaltState, bool) {
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

// Run watches until ctx ends. It creates the sentinel directories, adds the watches, and only
// then reads the sentinels, so a creation cannot fall between the two.
func (w *Watcher) Run(ctx context.Context) error {
	poll := w.Poll
	if poll <= 0 || poll > time.Second {
		poll = 500 * time.Millisecond
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		w.watcherFailed(fmt.Errorf("start file watcher: %w", err))
		return w.pollOnly(ctx, poll)
	}
	defer fw.Close()
	dirs := []string{w.Root.LiveDir()}
	for _, b := range w.Brokers {
		dirs = append(dirs, w.Root.BrokerDir(b))
	}
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			w.watcherFailed(fmt.Errorf("create %s: %w", d, err))
			continue
		}
		if err := fw.Add(d); err != nil {
			w.watcherFailed(fmt.Errorf("watch %s: %w", d, err))
		}
	}
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
			if base := filepath.Base(ev.Name); base == string(HaltSentinel) || base == string(ReduceOnlySentinel) {
				w.evaluate("fsnotify")
			}
		case err, ok := <-fw.Errors:
			if !ok {
				w.watcherFailed(fmt.Errorf("file watcher closed"))
				return w.pollOnly(ctx, poll)
			}
			w.watcherFailed(err)
		case <-tick.C:
			w.evaluate("poll")
		}
	}
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

// watcherFailed records a halt: not knowing is halted.
func (w *Watcher) watcherFailed(err error) {
	if !IsGloballyHalted(w.Root) {
		_, _ = Trip(w.Root, HaltSentinel, GlobalScope, "watcher", "halt watcher error: "+err.Error(), w.now())
	}
	w.evaluate("watcher error: " + err.Error())
}

// evaluate re-reads every broker's sentinels and publishes changes.
func (w *Watcher) evaluate(cause string) {
	now := w.now()
	var changed []HaltState
	var tripped []string
	w.mu.Lock()
	if w.state == nil {
		w.state = map[string]HaltState{}
	}
	for _, b := range w.Brokers {
		s := HaltState{Broker: b, Halted: IsHalted(w.Root, b), ReduceOnly: IsReduceOnly(w.Root, b), Cause: cause, At: now}
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
	subs := append([]chan HaltState(nil), w.subs...)
	w.mu.Unlock()
	for _, s := range changed {
		for _, ch := range subs {
			fanout.SendNewest(ch, s)
		}
	}
	if w.Actions != nil {
		for _, b := range tripped {
			go w.Actions.Invoke(context.Background(), b)
		}
	}
}
