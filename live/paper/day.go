package paper

import (
	"time"

	"cockpit/live/money"
)

// DayMark is the equity at the first valuation of a UTC day: the day P&L's baseline.
type DayMark struct {
	Day    string       `json:"day"` // 2006-01-02, UTC
	Equity money.Amount `json:"equity"`
}

// DayStart returns the equity the account had at its first valuation of now's UTC day,
// taking equity as that when the day has none yet. The mark is kept with the account (the
// persisted state), so a restart on the same day keeps the day's baseline.
func (b *Broker) DayStart(now time.Time, equity money.Amount) money.Amount {
	day := now.UTC().Format(time.DateOnly)
	b.mu.Lock()
	defer b.mu.Unlock()
	if m := b.st.DayStart; m != nil && m.Day == day {
		return m.Equity
	}
	b.st.DayStart = &DayMark{Day: day, Equity: equity}
	_ = b.changed() // a mark that cannot be saved is taken again at the next valuation
	return equity
}
