package wasmplugin

import (
	"strings"
	"sync"
	"time"

	"cockpit/live/redact"
)

// firstLine keeps the first non-empty line of untrusted text, redacted and short.
func firstLine(s string) string {
	for _, l := range strings.Split(strings.ToValidUTF8(s, "?"), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			s = l
			break
		}
	}
	s = redact.Secrets(strings.Join(strings.Fields(s), " "))
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}

// capped keeps the first 4 KiB written to it.
type capped struct {
	mu  sync.Mutex
	buf []byte
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := 4096 - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (c *capped) reset() {
	c.mu.Lock()
	c.buf = c.buf[:0]
	c.mu.Unlock()
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.buf)
}

// window counts calls in the last minute (for the screen; the engine's limiter enforces).
type window struct {
	mu sync.Mutex
	ts []time.Time
}

func (w *window) add(now time.Time) {
	w.mu.Lock()
	w.ts = append(w.ts, now)
	w.mu.Unlock()
}

func (w *window) count(now time.Time) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	i := 0
	for i < len(w.ts) && !w.ts[i].After(now.Add(-time.Minute)) {
		i++
	}
	w.ts = w.ts[i:]
	return len(w.ts)
}
