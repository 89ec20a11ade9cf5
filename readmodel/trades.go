package readmodel

import (
	"context"
	"time"

	"cockpit/store"
)

// tradesSeen is the day's trades last read and what they depended on: the UTC day and the
// audit trail's last seq (a fill is an audit event, so a new fill moves it).
type tradesSeen struct {
	day    time.Time
	seq    int64
	trades store.DayTrades
}

// tradesInto fills the UTC day's fills of this broker and the round trips they closed, as
// `cockpit trades` reads them (store.DayTrades); they are read again only when the day or the
// audit trail moved. An unreadable store is said (TradesErr), never shown as no trades.
func (r *Reader) tradesInto(ctx context.Context, now time.Time, snap *Snapshot) {
	day := store.UTCDay(now)
	seq, serr := r.DB.LastSeq(ctx)
	r.mu.Lock()
	seen := r.trades
	r.mu.Unlock()
	if serr == nil && seen.seq == seq && seen.day.Equal(day) { // a zero day (nothing read yet) never equals
		snap.Trades = seen.trades
		return
	}
	dt, err := r.DB.DayTrades(ctx, day, r.Broker)
	if err != nil {
		snap.Trades, snap.TradesErr = store.DayTrades{Day: day, Broker: r.Broker}, "the day's trades are unreadable: "+err.Error()
		return
	}
	snap.Trades = dt
	if serr == nil {
		r.mu.Lock()
		r.trades = tradesSeen{day: day, seq: seq, trades: dt}
		r.mu.Unlock()
	}
}

// DayTrades is one UTC day's fills and the round trips they closed, as the store reads them.
type DayTrades = store.DayTrades

// Trade is one fill of the day.
type Trade = store.Trade

// RoundTrip is one round trip a fill closed.
type RoundTrip = store.RoundTrip

// FillApplied is the state of a fill the lots applied.
const FillApplied = store.FillApplied

// UTCDay is the UTC midnight that starts t's day.
func UTCDay(t time.Time) time.Time { return store.UTCDay(t) }
