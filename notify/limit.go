package notify

import "time"

// bucket is a token bucket: up to perMinute messages at once, refilled at perMinute a minute.
// Its clock is the caller's (a fake one in tests).
type bucket struct {
	perMinute int
	tokens    float64
	at        time.Time // when tokens was last brought up to date
}

func newBucket(perMinute int, now time.Time) *bucket {
	return &bucket{perMinute: perMinute, tokens: float64(perMinute), at: now}
}

// refill brings the tokens up to now (a clock that went back adds nothing).
func (b *bucket) refill(now time.Time) {
	if d := now.Sub(b.at); d > 0 {
		b.tokens = min(float64(b.perMinute), b.tokens+d.Minutes()*float64(b.perMinute))
	}
	b.at = now
}

// allow takes a token if one is there.
func (b *bucket) allow(now time.Time) bool {
	b.refill(now)
	if b.tokens >= 1 {
		b.tokens--
		return true
	}
	return false
}

// wait is how long until a token is there (0: now).
func (b *bucket) wait(now time.Time) time.Duration {
	b.refill(now)
	if b.tokens >= 1 {
		return 0
	}
	return time.Duration((1 - b.tokens) / float64(b.perMinute) * float64(time.Minute))
}
