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
func (o *ownerSource) pnl(snap *readmodel.Snapshot) {
	eq := snap.Account.Equity
	s := o.s
	now := s.rt.Now()
	o.mu.Lock()
	if o.start == nil {
		o.start = &eq
	}
	snap.StartEquity = *o.start
	if day := now.UTC().Format(time.DateOnly); s.paper == nil {
		if eq.Sign() > 0 && o.day.day != day {
			o.day = dayMark{day: day, equity: eq}
		}
		if o.day.day == day {
			snap.DayEquity = o.day.equity
		}
	}
	o.mu.Unlock()
	if s.paper != nil {
		if eq.Sign() > 0 {
			snap.DayEquity = s.paper.DayStart(now, eq)
		}
		snap.Realized = s.paper.Realized()
		return
	}
	sum := money.Zero
	for _, p := range snap.Positions {
		sum = sum.Add(p.RealizedPnL)
	}
	snap.Realized = sum
}
