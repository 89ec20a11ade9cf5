package halt

import "sync"

// Latch is an in-memory halt: set when the cockpit cannot know whether a sentinel stands
// (the halt watcher cannot watch), it halts every broker of the process like a global HALT
// file, whatever the disk says, until an operator resumes. The zero value is unset; a nil
// latch is never set.
type Latch struct {
	mu     sync.Mutex
	set    bool
	reason string
}

// Set latches the halt with a reason and reports whether it was newly set; the first reason
// stands until Clear.
func (l *Latch) Set(reason string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.set {
		return false
	}
	l.set, l.reason = true, reason
	return true
}

// Halted reports whether the latch is set and why.
func (l *Latch) Halted() (bool, string) {
	if l == nil {
		return false, ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.set, l.reason
}

// Clear releases the latch (an operator's resume) and reports whether it was set.
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
