package tui

import (
	"time"

	"cockpit/live"
	"cockpit/live/money"
	"cockpit/live/termsafe"
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
	Remote        bool // served over SSH (Options.Remote)
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

	Flash      string // the footer's message
	FlashAt    time.Time
	FlashState live.TradingState // the trading state the message claims, "" when none

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
// Its text may quote an order id, a symbol or an error from outside: control characters are
// escaped.
func (d *Data) say(text string) {
	d.Flash, d.FlashAt, d.FlashState = termsafe.Text(text), d.c.Now(), ""
}

// sayState shows a message that claims a trading state; it is replaced as soon as the
// state shown is another one (one source of truth: the state, not the message).
func (d *Data) sayState(text string, st live.TradingState) {
	d.say(text)
	d.FlashState = st
}

// flash is the footer message still worth showing: recent and not contradicted by the state.
func (d *Data) flash() string {
	if d.Flash == "" || d.c.Now().Sub(d.FlashAt) >= 5*time.Second {
		return ""
	}
	if d.FlashState != "" && d.FlashState != d.State() {
		return ""
	}
	return d.Flash
}

// noteStateChange replaces a message that claims a state other than the new one.
func (d *Data) noteStateChange(prev, now live.TradingState, why string) {
	if prev == now || d.FlashState == "" || d.FlashState == now {
		return
	}
	text := "trading is now " + string(now)
	if why != "" {
		text += ": " + untrusted(why, 80)
	}
	d.sayState(text, now)
}

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
