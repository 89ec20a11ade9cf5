package sshserve

import (
	"sync"
	"time"
)

// limiter counts failed authentication attempts per source address: past max within window,
// the address's connections are refused until the oldest failure ages out.
type limiter struct {
	max    int
	window time.Duration
	now    func() time.Time

	mu    sync.Mutex
	fails map[string][]time.Time
}

func newLimiter(max int, window time.Duration, now func() time.Time) *limiter {
	return &limiter{max: max, window: window, now: now, fails: map[string][]time.Time{}}
}

// recent drops host's failures older than the window and returns the rest (mu held).
func (l *limiter) recent(host string) []time.Time {
	cut := l.now().Add(-l.window)
	ts := l.fails[host]
	i := 0
	for i < len(ts) && !ts[i].After(cut) {
		i++
	}
	ts = ts[i:]
	if len(ts) == 0 {
		delete(l.fails, host)
		return nil
	}
	l.fails[host] = ts
	return ts
}

// Fail records a failed attempt from host.
func (l *limiter) Fail(host string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.fails[host] = append(l.recent(host), l.now())
	if len(l.fails) > maxTracked { // many addresses: drop the ones whose failures aged out
		for h := range l.fails {
			l.recent(h)
		}
	}
}

// maxTracked is how many addresses the limiter holds before it sweeps the aged ones.
const maxTracked = 4096

// Blocked reports whether host has failed max times within the window.
func (l *limiter) Blocked(host string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.recent(host)) >= l.max
}
