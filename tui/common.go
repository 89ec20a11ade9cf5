package tui

import (
	"time"

	"cockpit/live"
	"cockpit/live/money"
)

// Common is what every component shares (soft-serve's pattern): the terminal size, styles,
// keys, the clock, privacy mode and the state on screen. The root owns it and writes it;
// panes, bars and modals hold a pointer and read it.
type Common struct {
	Width, Height int
	Styles        Styles
	Keys          KeyMap
	Now           func() time.Time
	Privacy       bool
	Data          *Data
}

// amt formats money, hidden in privacy mode; compact uses 8.2k style.
func (c *Common) amt(a money.Amount, compact bool) string {
	if c.Privacy {
		return "•••"
	}
	if compact {
		return short(a)
	}
	return fmtMoney(a, 2)
}

// Data is the state the screen shows: the root folds snapshots and engine events into it
// (data.go), the components read it.
type Data struct {
	Snap   Snapshot
	Frozen *Snapshot    // tables shown while frozen
	Ready  bool         // the first snapshot arrived
	Gross  money.Amount // the snapshot's gross exposure as the gate counts it
	Series series
	Agent  agentStatus
	Alerts alertLog

	Flash   string // the footer's message
	FlashAt time.Time

	gen          uint64          // the engine bus generation events are accepted from
	outcomeShown map[string]bool // review ids whose post-approval outcome is on screen
	lastRefresh  time.Time       // the last refresh an order update asked for
	c            *Common
}

type agentStatus struct {
	turn   int
	last   string
	paused bool
}

// View returns the snapshot the tables show (frozen or live).
func (d *Data) View() *Snapshot {
	if d.Frozen != nil {
		return d.Frozen
	}
	return &d.Snap
}

// State is the trading state shown: a halt seen in an event counts before the next snapshot.
func (d *Data) State() live.TradingState {
	if d.Snap.State == "" {
		return "UNKNOWN"
	}
	return d.Snap.State
}

// say shows a message in the footer for a few seconds.
func (d *Data) say(text string) { d.Flash, d.FlashAt = text, d.c.Now() }

// toggleFreeze keeps the tables still (or lets them move again).
func (d *Data) toggleFreeze() {
	if d.Frozen != nil {
		d.Frozen = nil
		return
	}
	s := d.Snap
	d.Frozen = &s
}

// stale reports whether the last snapshot is too old to trust.
func (d *Data) stale() bool {
	return !d.Ready || d.c.Now().Sub(d.Snap.Taken) > 5*time.Second
}
