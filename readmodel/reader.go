package readmodel

import (
	"context"
	"os"
	"sync"
	"time"

	"cockpit/live"
	"cockpit/live/counter"
	"cockpit/live/mandatefile"
	"cockpit/store"
)

// Source fills the part of a snapshot only the account's owner can read (Owned: its broker and
// its engine): the owning process reads them itself, a supervisor from what the owner
// publishes. It may also say who owns the account (Supervising, OwnerGone) and add warnings.
type Source interface {
	Owned(ctx context.Context, snap *Snapshot)
}

// FleetCount is the fleet's shared day count (fleet.Days).
type FleetCount interface {
	Count(ctx context.Context, broker, day string) (int, error)
}

// Reader builds the snapshot of one broker on one root: every window of that account (the
// owner's screen, a supervising one, SSH, the owner's published state) reads through one, so
// none of them derives the state its own way.
type Reader struct {
	Root   live.Root
	Broker string // a normalised key
	Live   bool   // a live broker (the LIVE badge)
	Now    func() time.Time
	DB     *store.DB
	Source Source
	// Fleet, when set, is the fleet's day count: OrdersToday is the fleet's, HostOrders this
	// root's share.
	Fleet FleetCount
	// FleetView, when set, reads the fleet's health and hosts.
	FleetView func(ctx context.Context, now time.Time) *FleetView

	mu         sync.Mutex
	tail       auditTail
	alertsSeen trailAlerts
	mandate    mandateSeen
	trades     tradesSeen
}

// Snapshot reads the account's state as every window shows it.
func (r *Reader) Snapshot(ctx context.Context) Snapshot {
	now := r.Now()
	snap := Snapshot{Taken: now, Broker: r.Broker, Live: r.Live}
	snap.Quotes = map[string]live.Quote{}
	Sentinels(r.Root, r.Broker, &snap)
	r.mandateInto(ctx, &snap)
	r.countInto(ctx, now, &snap)
	if r.Source != nil {
		r.Source.Owned(ctx, &snap)
	}
	switch fd := snap.FleetDay; {
	case r.Fleet != nil && snap.FleetOrders: // this process's own fleet count: published for supervisors
		snap.FleetDay = &FleetDay{Orders: snap.OrdersToday, Here: snap.HostOrders}
	case r.Fleet == nil && fd != nil: // the owner's fleet count (a supervisor has no fleet link)
		snap.OrdersToday, snap.HostOrders, snap.FleetOrders = max(fd.Orders, snap.OrdersToday), fd.Here, true
	}
	if snap.OwnerHalt != "" { // the owner's halt latch, whatever the disk says
		snap.State, snap.HaltReason = live.Halted, snap.OwnerHalt
	}
	if items, err := r.DB.Approvals(ctx, store.ApprovalPending, 200); err == nil {
		for _, a := range items {
			snap.Reviews = append(snap.Reviews, store.ReviewItem(a))
		}
	}
	r.tradesInto(ctx, now, &snap)
	snap.Audit, snap.AuditTotal = r.auditTail(ctx)
	snap.Alerts = r.alerts(ctx, snap.AuditTotal)
	if r.FleetView != nil {
		snap.Fleet = r.FleetView(ctx, now)
	}
	return snap
}

// countInto is the day's order count as the gate counts it (DV14: the counter file or the
// journal, whichever is larger), the fleet's when in a fleet.
func (r *Reader) countInto(ctx context.Context, now time.Time, snap *Snapshot) {
	n, d := counter.DailyCount(ctx, r.Root, r.DB, r.Broker, now)
	if d != nil { // the gate denies while it cannot count: never shown as 0 orders
		snap.CountErr = d.Error()
		snap.Faults = append(snap.Faults, "the day's order count is unreadable ("+d.Error()+"): the gate denies orders until it can count")
	}
	snap.OrdersToday = n
	if r.Fleet == nil {
		return
	}
	// This host's share is what its journal holds (its counter file mirrors the fleet's count).
	if n, err := r.DB.AcceptedOrders(ctx, r.Broker, now); err == nil {
		snap.HostOrders = n
	}
	if n, err := r.Fleet.Count(ctx, r.Broker, now.UTC().Format(time.DateOnly)); err == nil {
		snap.OrdersToday, snap.FleetOrders = max(n, snap.OrdersToday), true
	} else {
		snap.Faults = append(snap.Faults, "the fleet's day count is unreadable ("+err.Error()+"): the count shown is this host's")
	}
}

// mandateInto fills the mandate the gate would use (DV13): one it will not use is shown as an
// error, never as limits.
func (r *Reader) mandateInto(ctx context.Context, snap *Snapshot) {
	mc := r.mandateCheck(ctx)
	if !mc.Verified() {
		snap.MandateState = mc.State
		if mc.State != live.MandateMissing {
			snap.MandateErr = mc.Describe()
		}
		return
	}
	m := mc.Mandate
	snap.Mandate, snap.MandateState = m, mc.State
	snap.Expires, _ = m.Expiry()
	snap.Committed, _ = live.ParseExpiry(m.Consent.CreatedAt)
}

// mandateSeen is the last mandate check and what it depended on: the bytes of mandate.json
// (their hash) and the audit trail (its last seq, which a commit moves).
type mandateSeen struct {
	hash  string
	seq   int64
	check live.MandateCheck
}

// mandateCheck is mandatefile.Read, answered again while the file's bytes and the audit trail
// are unchanged, without parsing the file and reading the ledger anew; any change of either
// (an edit, a commit) reads it in full, and a check that failed to read is never kept.
func (r *Reader) mandateCheck(ctx context.Context) live.MandateCheck {
	seq, serr := r.DB.LastSeq(ctx)
	if data, err := os.ReadFile(r.Root.MandatePath(r.Broker)); err == nil && serr == nil {
		r.mu.Lock()
		seen := r.mandate
		r.mu.Unlock()
		if seen.hash == live.MandateHash(data) && seen.seq == seq {
			return seen.check
		}
	}
	mc := mandatefile.Read(ctx, r.Root, r.DB, r.Broker)
	if serr == nil && mc.Err == nil && mc.Hash != "" {
		r.mu.Lock()
		r.mandate = mandateSeen{hash: mc.Hash, seq: seq, check: mc}
		r.mu.Unlock()
	}
	return mc
}
