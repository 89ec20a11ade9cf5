package gate

import (
	"context"
	"fmt"
	"time"

	"cockpit/live"
	"cockpit/live/equitymark"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
	"cockpit/live/mandatefile"
	"cockpit/live/money"
)

// LossHalt is a loss limit the gate found crossed: the reading, the limit, and whether this
// reading tripped the broker's HALT (false when a HALT was already in place).
type LossHalt struct {
	Broker  string
	Limits  live.LossLimits
	Gauge   live.LossGauge
	Tripped bool
	At      time.Time
}

// Message is a one-line account of the crossing.
func (h LossHalt) Message() string {
	return fmt.Sprintf("HALTED %s (%s): %s", live.ReasonLossLimit, h.Broker, h.Gauge.Describe(h.Limits))
}

// lossState is what the gate remembers about loss limits: each broker's equity mark keeper
// (a file for a broker that keeps none) and the crossings it reported (per broker, day and
// limit), so a crossing is reported once however many readings see it.
type lossState struct {
	mu       chan struct{} // one trip at a time (a buffered channel of 1: a lock that ctx can skip)
	files    map[string]*equitymark.File
	reported map[string]bool
	last     map[string]live.LossLimits // per broker, the last reading (LastLoss)
}

// Marker is the keeper of broker's day equity mark: the broker itself when it keeps one (the
// paper account), else the mark file beside its day count (one per broker for the gate's life,
// so a file cannot lower a mark this process saw).
func (g *Gate) Marker(b live.Broker, key string) live.EquityMarker {
	if m, ok := b.(live.EquityMarker); ok {
		return m
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.loss.files == nil {
		g.loss.files = map[string]*equitymark.File{}
	}
	f := g.loss.files[key]
	if f == nil {
		f = &equitymark.File{Root: g.Root, Broker: key}
		g.loss.files[key] = f
	}
	return f
}

// LossLimits reads m's loss limits at one equity reading (acct, or readErr when the account
// could not be read): the reading marks the day's baseline and peak; nothing is tripped. A
// failed read, a non-positive equity or a mark that cannot be kept gives limits whose Err is
// set (orders that add exposure are then denied).
func (g *Gate) LossLimits(b live.Broker, key string, m *live.Mandate, acct live.Account, readErr error) live.LossLimits {
	now := g.now()
	if m == nil || !m.Controls.HasLossLimits() {
		return live.LossLimits{At: now}
	}
	var l live.LossLimits
	if readErr != nil {
		l = live.LossUnknown(m.Controls, now, fmt.Errorf("account unreadable: %w", readErr))
	} else if mark, err := g.Marker(b, key).MarkEquity(now, acct.Equity); err != nil {
		l = live.LossUnknown(m.Controls, now, err)
	} else {
		l = live.EvaluateLoss(m.Controls, mark, acct.Equity, now)
	}
	g.mu.Lock()
	if g.loss.last == nil {
		g.loss.last = map[string]live.LossLimits{}
	}
	g.loss.last[key] = l
	g.mu.Unlock()
	return l
}

// LastLoss is broker's last loss-limit reading (an order's, WatchLoss's or a what-if's): what
// the screen's gauges show (used / limit per limit), false before the first one.
func (g *Gate) LastLoss(key string) (live.LossLimits, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	l, ok := g.loss.last[key]
	return l, ok
}

// CheckLoss is LossLimits, and when a limit is crossed the broker's HALT is tripped with
// reason loss_limit (audited; the halt watcher's action then cancels resting orders and, when
// the mandate says flatten_on_halt, closes positions). A crossing is recorded
// (loss_limit_crossed) and told to OnLossLimit when it trips the HALT, and once per broker,
// UTC day and limit when a HALT was already in place.
func (g *Gate) CheckLoss(ctx context.Context, b live.Broker, key string, m *live.Mandate, acct live.Account, readErr error) live.LossLimits {
	l := g.LossLimits(b, key, m, acct, readErr)
	if gauge := l.Crossed(); gauge != nil {
		g.tripLoss(ctx, key, l, *gauge)
	}
	return l
}

// WatchLoss is an equity read outside an order (a timer, a fill): the broker's verified
// mandate, one account read, CheckLoss. It reports false when the mandate sets no loss limit
// (nothing is read) or cannot be trusted (the gate denies every order then anyway).
func (g *Gate) WatchLoss(ctx context.Context, b live.Broker, key string) (live.LossLimits, bool) {
	m := mandatefile.Verified(ctx, g.Root, g.Mandates, key)
	if m == nil || !m.Controls.HasLossLimits() {
		return live.LossLimits{}, false
	}
	acct, err := b.Account(ctx)
	return g.CheckLoss(ctx, b, key, m, acct, err), true
}

// tripLoss writes the broker's HALT for a crossed limit unless one is there, audits the trip
// and the crossing, and tells OnLossLimit. A HALT that cannot be written sets the in-memory
// latch instead: a crossed limit always halts.
func (g *Gate) tripLoss(ctx context.Context, key string, l live.LossLimits, gauge live.LossGauge) {
	g.lossLock()
	defer g.lossUnlock()
	now := g.now()
	why := string(live.ReasonLossLimit) + ": " + gauge.Describe(l)
	tripped := false
	if a, _ := halt.ReadSentinel(g.Root, live.HaltSentinel, live.BrokerScope(key)); a == nil {
		if g.ExpectSentinel != nil {
			g.ExpectSentinel(g.Root.SentinelPath(live.HaltSentinel, key))
		}
		_, err := halt.Trip(g.Root, live.HaltSentinel, live.BrokerScope(key), "cockpit", why, now)
		if !halt.InForce(err) {
			g.tripLatch(live.ReasonLossLimit, why+" (the HALT file could not be written: "+err.Error()+")")
		}
		tripped = true
		rec := live.AuditRecord{Time: now, Actor: live.System("loss-limit", ""), Kind: live.KindHaltTripped,
			Outcome: live.OutcomeBlocked, Reason: live.ReasonLossLimit, Broker: key, Intent: "HALT " + key + ": " + why,
			Detail: jsonv.ObjectOf("sentinel", string(live.HaltSentinel), "scope", live.BrokerScope(key).String(), "reason", why)}
		if err != nil {
			rec.Detail.(*jsonv.Object).Set("error", err.Error())
		}
		g.lossRecord(ctx, rec)
	}
	seen := key + "|" + l.Mark.Day + "|" + gauge.Limit
	if !tripped && g.loss.reported[seen] {
		return
	}
	if g.loss.reported == nil {
		g.loss.reported = map[string]bool{}
	}
	g.loss.reported[seen] = true
	detail := l.JSON()
	detail.Set("tripped_halt", tripped)
	g.lossRecord(ctx, live.AuditRecord{Time: now, Actor: live.System("loss-limit", ""), Kind: live.KindLossLimitCrossed,
		Outcome: live.OutcomeBlocked, Reason: live.ReasonLossLimit, Broker: key, Intent: gauge.Describe(l),
		Decision: &live.GateDecision{Decision: live.DecisionDeny, Checked: []string{"loss_limits"}, Limit: gauge.Limit,
			Kind: string(live.KindLoss), LimitValue: &gauge.Value, Attempted: &gauge.Used},
		Detail: detail})
	if g.OnLossLimit != nil {
		g.OnLossLimit(LossHalt{Broker: key, Limits: l, Gauge: gauge, Tripped: tripped, At: now})
	}
}

// lossRecord writes a loss-limit record; one that cannot be written halts (DV15).
func (g *Gate) lossRecord(ctx context.Context, rec live.AuditRecord) {
	if g.Audit == nil {
		g.TripAuditHalt(fmt.Errorf("audit record %s: no audit sink attached", rec.Kind))
		return
	}
	if err := g.Audit.Record(context.WithoutCancel(ctx), rec); err != nil {
		g.TripAuditHalt(fmt.Errorf("audit record %s: %w", rec.Kind, err))
	}
}

func (g *Gate) lossLock() {
	g.mu.Lock()
	if g.loss.mu == nil {
		g.loss.mu = make(chan struct{}, 1)
	}
	ch := g.loss.mu
	g.mu.Unlock()
	ch <- struct{}{}
}

func (g *Gate) lossUnlock() { <-g.loss.mu }

// lossLimits is the gate's loss step: with loss limits set, this run's account read is marked
// and checked. A crossed limit trips the broker's HALT (not on a dry run) and denies the order
// (loss_limit); an unknown equity denies an order that would add exposure (equity_unknown);
// an order that only reduces a position passes then (its exposure cannot add to the loss).
func (r *run) lossLimits(ctx context.Context) *live.Denial {
	if !r.m.Controls.HasLossLimits() {
		return nil
	}
	r.check("loss_limits")
	l := r.g.LossLimits(r.s.Broker, r.key, r.m, r.account, r.accountErr)
	r.d.Loss = &l
	if gauge := l.Crossed(); gauge != nil && !r.s.DryRun {
		r.g.tripLoss(ctx, r.key, l, *gauge)
	}
	increases := r.book.Err != nil || !live.ReducesPosition(r.book, r.intent)
	return l.Denial(increases)
}

// MarkEquity marks broker's day equity through its keeper (Marker) and returns the day's
// start equity: the day P&L's baseline, the same one the loss limits use.
func (g *Gate) MarkEquity(b live.Broker, key string, equity money.Amount) (live.EquityMark, error) {
	return g.Marker(b, key).MarkEquity(g.now(), equity)
}
