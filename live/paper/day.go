package paper

import (
	"time"

	"cockpit/live"
	"cockpit/live/money"
)

// DayMark is the equity at the first valuation of a UTC day (the day P&L's and the daily loss
// limit's baseline) and the highest equity valued that day (the drawdown limit's peak).
type DayMark struct {
	Day    string       `json:"day"` // 2006-01-02, UTC
	Equity money.Amount `json:"equity"`
	Peak   money.Amount `json:"peak,omitzero"` // zero in an account saved before peaks were kept: Equity
}

var _ live.EquityMarker = (*Broker)(nil)

// MarkEquity implements live.EquityMarker: the account keeps the day's mark (the persisted
// state), so a restart on the same day keeps the day's baseline and peak. A mark that cannot
// be saved is an error, and the account keeps the mark it had.
func (b *Broker) MarkEquity(now time.Time, equity money.Amount) (live.EquityMark, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var cur live.EquityMark
	if m := b.st.DayStart; m != nil {
		cur = live.EquityMark{Day: m.Day, Start: m.Equity, Peak: m.Peak}
	}
	next, changed, err := cur.Next(now, equity)
	if err != nil {
		return cur, err
	}
	if !changed {
		return next, nil
	}
	b.st.DayStart = &DayMark{Day: next.Day, Equity: next.Start, Peak: next.Peak}
	if err := b.changed(); err != nil { // undone: the saved mark stands
		return cur, err
	}
	return next, nil
}

// DayStart returns the equity the account had at its first valuation of now's UTC day,
// taking equity as that when the day has none yet (see MarkEquity). A mark that cannot be
// saved is taken again at the next valuation.
func (b *Broker) DayStart(now time.Time, equity money.Amount) money.Amount {
	m, err := b.MarkEquity(now, equity)
	if err != nil || m.Day != live.UTCDay(now) {
		return equity
	}
	return m.Start
}
