package session

import (
	"cockpit/live/money"
	"cockpit/tui"
)

// pnl fills the snapshot's money a trader reads first: the equity at session start, the
// equity at the UTC day's first valuation (the day P&L's baseline) and the realised P&L,
// closed positions included when the broker is the paper one.
//
// The day's baseline is the gate's equity mark (gate.Gate.Marker): the paper account keeps it
// in its saved state, any other broker in live/<broker>/day_equity.json, so a restart on the
// same day keeps it, and the loss limits (max_daily_loss_usd, max_drawdown_pct) read the same
// one. An equity that could not be read (zero) sets no baseline: the day P&L then shows as
// unknown.
func (b *Backend) pnl(snap *tui.Snapshot) {
	eq := snap.Account.Equity
	b.mu.Lock()
	if b.start == nil {
		b.start = &eq
	}
	snap.StartEquity = *b.start
	b.mu.Unlock()
	if eq.Sign() > 0 {
		if m, err := b.s.gate.MarkEquity(b.s.broker, b.s.key, eq); err == nil {
			snap.DayEquity = m.Start
		} else {
			b.s.rt.Log.Warn("day equity mark", "err", err)
		}
	}
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
