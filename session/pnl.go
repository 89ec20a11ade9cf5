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
	if b.s.paper != nil {
		snap.Realized = b.s.paper.Realized()
		return
	}
	sum := money.Zero
	for _, p := range snap.Positions {
		sum = sum.Add(p.RealizedPnL)
	}
	snap.Realized = sum
}
