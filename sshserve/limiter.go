package sshserve

import (
	"sync"
	"time"
)

// limiter counts failed authentication attempts per source address and key fingerprint: past
// max within window, that key is refused from that address until its oldest failure ages out.
// A key that has not failed from an address is never refused there, whatever other keys (or
// passwords) from the same address did. An attempt without a key counts under the empty
// fingerprint. The address's own total only says it is noisy: its further refusals are logged,
// not audited one by one, so a flood cannot fill the audit trail.
type limiter struct {
	max    int
	window time.Duration
	now    func() time.Time

	mu      sync.Mutex
	fails   map[string][]time.Time // "host|fingerprint", and "host" for the address's total
	sweepAt int                    // the next sweep comes past this many counters (and maxTracked)
}

func newLimiter(max int, window time.Duration, now func() time.Time) *limiter {
	return &limiter{max: max, window: window, now: now, fails: map[string][]time.Time{}}
}

func pairKey(host, fp string) string { return host + "|" + fp }

// recent drops key's failures older than the window and returns the rest (mu held).
func (l *limiter) recent(key string) []time.Time {
	cut := l.now().Add(-l.window)
	ts := l.fails[key]
	i := 0
	for i < len(ts) && !ts[i].After(cut) {
		i++
	}
	ts = ts[i:]
	if len(ts) == 0 {
		delete(l.fails, key)
		return nil
	}
	l.fails[key] = ts
	return ts
}

// Fail records a failed attempt of key fp ("" for none) from host; noisy reports that this
// failure made the address reach max failures within the window.
func (l *limiter) Fail(host, fp string) (noisy bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.fails[pairKey(host, fp)] = append(l.recent(pairKey(host, fp)), now)
	total := append(l.recent(host), now)
	l.fails[host] = total
	if len(l.fails) > max(maxTracked, l.sweepAt) {
		l.sweep()
	}
	return len(total) == l.max
}

// Counters held: past maxTracked (and twice what the last sweep kept) the aged ones are swept;
// past maxHeld after a sweep (a flood from very many addresses) all are forgotten.
const (
	maxTracked = 4096
	maxHeld    = 1 << 16
)

// sweep drops the counters whose failures aged out (mu held).
func (l *limiter) sweep() {
	for k := range l.fails {
		l.recent(k)
	}
	if len(l.fails) > maxHeld {
		clear(l.fails)
	}
	l.sweepAt = 2 * len(l.fails)
}

// Blocked reports whether key fp has failed max times from host within the window.
func (l *limiter) Blocked(host, fp string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.recent(pairKey(host, fp))) >= l.max
}

// Noisy reports whether host has failed max times within the window, with any keys.
func (l *limiter) Noisy(host string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.recent(host)) >= l.max
}
