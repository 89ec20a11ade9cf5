package session

import (
	"time"

	"cockpit/readmodel"

	"cockpit/live/money"
)

// dayMark is the equity at the first snapshot of a UTC day (2006-01-02).
type dayMark struct {
	day    string
	equity money.Amount
}

// pnl fills the snapshot's money a trader reads first: the equity at session start, the
// equity at the UTC day's first snapshot (the day P&L's baseline) and the realised P&L,
// closed positions included when the broker is the paper one.
//
// The day's baseline is the equity of the first snapshot taken on that UTC day. The paper
// broker keeps it in its persisted account, so a restart on the same day keeps it; another
// broker's is kept in memory, from the first snapshot this process took that day. An equity
// that could not be read (zero) sets no baseline: the day P&L then shows as unknown.
func (b *Backend) pnl(snap *readmodel.Snapshot) {
	eq := snap.Account.Equity
	now := b.s.rt.Now()
	b.mu.Lock()
	if b.start == nil {
		b.start = &eq
	}
	snap.StartEquity = *b.start
	if day := now.UTC().Format(time.DateOnly); b.s.paper == nil {
		if eq.Sign() > 0 && b.dayEq.day != day {
			b.dayEq = dayMark{day: day, equity: eq}
		}
		if b.dayEq.day == day {
			snap.DayEquity = b.dayEq.equity
		}
	}
	b.mu.Unlock()
	if b.s.paper != nil {
		if eq.Sign() > 0 {
			snap.DayEquity = b.s.paper.DayStart(now, eq)
		}
		snap.Realized = b.s.paper.Realized()
		return
	}
	sum := money.Zero
	for _, p := range snap.Positions {
		sum = sum.Add(p.RealizedPnL)
	}
	snap.Realized = sum
}
