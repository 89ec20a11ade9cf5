package session

import (
	"cockpit/live/money"
	"cockpit/tui"
)

// pnl fills the snapshot's money a trader reads first: the equity at session start and the
// realised P&L, closed positions included when the broker is the paper one.
func (b *Backend) pnl(snap *tui.Snapshot) {
	b.mu.Lock()
	if b.start == nil {
		eq := snap.Account.Equity
		b.start = &eq
	}
	snap.StartEquity = *b.start
	b.mu.Unlock()
	real := money.Zero
	if b.s.paper != nil {
		for _, p := range b.s.paper.Snapshot().Positions {
			real = real.Add(p.Realized)
		}
	} else {
		for _, p := range snap.Positions {
			real = real.Add(p.RealizedPnL)
		}
	}
	snap.Realized = real
}
