package session

import (
	"cockpit/live/money"
	"cockpit/readmodel"
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
func (o *ownerSource) pnl(snap *readmodel.Snapshot) {
	eq := snap.Account.Equity
	s := o.s
	o.mu.Lock()
	if o.start == nil {
		o.start = &eq
	}
	snap.StartEquity = *o.start
	o.mu.Unlock()
	if eq.Sign() > 0 {
		if m, err := s.gate.MarkEquity(s.broker, s.key, eq); err == nil {
			snap.DayEquity = m.Start
		} else {
			s.rt.Log.Warn("day equity mark", "err", err)
		}
	}
	if s.paper != nil {
		snap.Realized = s.paper.Realized()
		return
	}
	sum := money.Zero
	for _, p := range snap.Positions {
		sum = sum.Add(p.RealizedPnL)
	}
	snap.Realized = sum
}
