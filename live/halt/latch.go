package halt

import (
	"sync"
	"time"

	"cockpit/live"
)

// Latch is a process's one in-memory halt: the gate, the engine and the screen all consult it.
// It is set in one of two ways: Set, when the cockpit cannot know whether a sentinel stands (the
// halt watcher cannot watch), which an operator's resume clears; or Hold, when the audit trail
// could not be written (DV15), which nothing clears for the life of the process. Either halts
// every broker of the process like a global HALT file, whatever the disk says. The zero value
// is unset; a nil latch is never set.
type Latch struct {
	mu     sync.Mutex
	set    bool
	reason string
	hold   *Hold
	held   chan struct{} // closed by the first Hold
}

// Hold is a halt no resume clears: why the audit trail could not be written, and when.
type Hold struct {
	Reason live.Reason
	Detail string
	At     time.Time
}

// Message is a one-line account of the hold.
func (h Hold) Message() string { return "HALTED " + string(h.Reason) + ": " + h.Detail }

// Set latches a halt an operator's resume clears and reports whether it was newly set; the
// first reason stands until Clear.
func (l *Latch) Set(reason string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.set {
		return false
	}
	l.set, l.reason = true, reason
	return true
}

// Hold latches a halt for the life of the process and reports whether it is the first hold;
// later holds keep the first cause.
func (l *Latch) Hold(reason live.Reason, detail string, at time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.hold != nil {
		return false
	}
	l.hold = &Hold{Reason: reason, Detail: detail, At: at}
	if l.held == nil {
		l.held = make(chan struct{})
	}
	close(l.held)
	return true
}

// Halted reports whether the latch halts, and why: a hold's message first, else Set's reason.
func (l *Latch) Halted() (bool, string) {
	if l == nil {
		return false, ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.hold != nil {
		return true, l.hold.Message()
	}
	return l.set, l.reason
}

// Held returns the hold, if the latch holds one.
func (l *Latch) Held() (Hold, bool) {
	if l == nil {
		return Hold{}, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.hold == nil {
		return Hold{}, false
	}
	return *l.hold, true
}

// HeldC is closed when the latch first holds.
func (l *Latch) HeldC() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held == nil {
		l.held = make(chan struct{})
	}
	return l.held
}

// Clear releases a halt an operator may resume (Set) and reports whether it was set; a hold
// stays.
func (l *Latch) Clear() bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	was := l.set
	l.set, l.reason = false, ""
	return was
}

// Resumable reports whether the latch holds a halt an operator's resume clears (Set), and why.
func (l *Latch) Resumable() (bool, string) {
	if l == nil {
		return false, ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.set, l.reason
}
