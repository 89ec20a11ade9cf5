package session

import (
	"context"
	"sync"
	"time"

	"cockpit/live/money"
	"cockpit/readmodel"
)

// reader builds the session's read model: the one every window of this account reads (the
// owner's screen, SSH screens, the live state supervisors are sent).
func (s *Session) newReader() *readmodel.Reader {
	r := &readmodel.Reader{Root: s.rt.Root, Broker: s.key, Live: s.rt.IsLive(s.key), Now: s.rt.Now, DB: s.rt.DB,
		Source: &ownerSource{s: s}, FleetView: s.fleet.view}
	if s.fleet != nil {
		r.Fleet = s.fleet.days
	}
	return r
}

// ownerSource reads what only this process can: its broker, its engine, its agent.
type ownerSource struct {
	s     *Session
	mu    sync.Mutex    // guards start
	start *money.Amount // the equity at the session's first account read
	trail trailCache    // open orders' decision trails (trail.go)
	whose originCache   // who placed each open order (origins.go)
}

// Owned implements readmodel.Source.
func (o *ownerSource) Owned(ctx context.Context, snap *readmodel.Snapshot) {
	s := o.s
	snap.Agent = s.AgentName()
	if st, ok := s.agent.(interface{ Status() string }); ok && s.agent != nil {
		snap.Agent = st.Status() // a plugin: its grants and usage, or why it is disabled
	}
	snap.Paused, snap.Blocked = s.eng.Paused(), s.eng.Blocked()
	snap.PauseTill, snap.PauseWhy = s.eng.CoolingDown()
	if on, why := s.latch.Halted(); on { // the halt latch (the watcher's, or the audit's: DV15), whatever the disk says
		snap.OwnerHalt, snap.Paused = why, true
	}
	now := s.rt.Now()
	if d, err := s.rt.DB.AgentOrdersSince(ctx, s.key, dayStart(now)); err == nil {
		snap.LargestOrder, snap.LastOrder, snap.Breaches = d.Largest, d.Last, d.Approved
	}
	o.readBroker(ctx, snap)
	if l, ok := s.gate.LastLoss(s.key); ok { // the gate's own reading of the loss limits
		snap.Loss = l.Gauges
		if l.Err != nil {
			snap.LossErr = l.Err.Error()
		}
	}
	snap.Tools = s.rt.BrokerTools(s.broker, s.key)
}

// dayStart is the start of now's UTC day.
func dayStart(now time.Time) time.Time {
	u := now.UTC()
	return time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC)
}

// readBroker reads positions, open orders, the account and quotes, timing the round trip.
func (o *ownerSource) readBroker(ctx context.Context, snap *readmodel.Snapshot) {
	s := o.s
	br := s.broker
	start := time.Now()
	pos, err := br.Positions(ctx)
	if err != nil {
		snap.BrokerErr = err.Error()
		return
	}
	snap.Latency, snap.BookAt = time.Since(start), s.rt.Now()
	snap.Positions = pos
	if snap.Orders, err = br.OpenOrders(ctx); err != nil {
		snap.BrokerErr = err.Error()
	}
	if snap.Account, err = br.Account(ctx); err != nil {
		snap.BrokerErr = err.Error()
	} else {
		o.pnl(snap)
	}
	syms := map[string]bool{}
	if s.paper != nil {
		for _, sym := range s.paper.Market().Symbols() {
			syms[sym] = true
		}
	}
	for _, p := range pos {
		syms[p.Symbol] = true
	}
	for _, ord := range snap.Orders {
		syms[ord.Symbol] = true
	}
	for sym := range syms {
		if q, err := br.Quote(ctx, sym); err == nil {
			snap.Quotes[sym] = q
		}
	}
	snap.Origins = o.whose.of(ctx, s, snap.Orders)
	snap.Trails = o.trail.of(ctx, s, snap.Orders)
}
