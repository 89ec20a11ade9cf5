// Package supervise is the screen's backend for a root whose broker account another process
// owns (issue 14): it reads the sentinels, the mandate, the store and the owner's published
// live state, writes sentinels itself, and sends cancel, close, flatten, block and unblock to
// the owner through the store's command queue; with the owner gone it flattens itself.
package supervise

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"cockpit/readmodel"

	"cockpit/live"
	"cockpit/live/counter"
	"cockpit/live/halt"
	"cockpit/live/mandatefile"
	"cockpit/session"
	"cockpit/store"
)

// Backend supervises the owner of one broker account (tui.Backend).
type Backend struct {
	rt  *session.Runtime
	key string
	id  string // this supervisor's session id in the audit
	// Now is the clock that judges the owner's heartbeat (the runtime's by default).
	Now      func() time.Time
	operator string // "tui:<user>", when the ctx names no operator

	mu      sync.Mutex
	tail    []readmodel.AuditRow // the audit tail as of tailSeq
	tailSeq int64
	lsVer   int64     // the live state version read
	lsAt    time.Time // when the owner last published it
	watched time.Time // this supervisor's last stamp on the owner row
	// firstWatch is when this supervisor first watched a live owner.
	firstWatch time.Time
	ls         session.LiveState // the owner's live state at lsVer
	mandate    mandateSeen       // the last mandate check and what it read

	flattenMu sync.Mutex
}

// ErrOwnerGone reports an owner with no heartbeat for session.OwnerStale, or no owner.
var ErrOwnerGone = errors.New("owner gone")

// Open supervises broker key on the runtime rt (the caller keeps and closes rt).
func Open(rt *session.Runtime, key string) (*Backend, error) {
	k, err := live.NormalizeBroker(key)
	if err != nil {
		return nil, err
	}
	return &Backend{rt: rt, key: k, id: live.RandomID("sup"), Now: rt.Now,
		operator: strings.Replace(session.OperatorName(), "cli", "tui", 1)}, nil
}

// Close ends the supervision (the runtime stays open).
func (b *Backend) Close() {}

// Key is the supervised broker.
func (b *Backend) Key() string { return b.key }

// Owner returns the owner row and whether it is alive at b.Now.
func (b *Backend) Owner(ctx context.Context) (store.Owner, bool, error) {
	o, found, err := b.rt.DB.OwnerOf(ctx, b.key)
	if err != nil || !found {
		return o, false, err
	}
	return o, o.Alive(b.Now(), session.OwnerStale), nil
}

// op is who an action with ctx is audited as.
func (b *Backend) op(ctx context.Context) live.Principal {
	return live.Operator(session.OperatorFrom(ctx, b.operator), b.id)
}

// Snapshot implements tui.Backend: sentinels, mandate and store read here, the broker's
// state from the owner's live state, the audit tail read incrementally.
func (b *Backend) Snapshot(ctx context.Context) readmodel.Snapshot {
	rt, key := b.rt, b.key
	now := b.Now()
	snap := readmodel.Snapshot{Taken: now, Broker: key, Live: rt.IsLive(key), HaltFile: rt.Root.SentinelPath(live.HaltSentinel, key),
		HaltFileOK: true, Quotes: map[string]live.Quote{}}
	snap.State = halt.StateOf(rt.Root, key)
	snap.Warnings = session.SentinelWarnings(rt.Root)
	for _, scope := range []live.Scope{live.GlobalScope, {Broker: key}} {
		if _, err := os.Stat(rt.Root.SentinelPath(live.HaltSentinel, scope.Broker)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			snap.HaltFileOK = false
		}
		if a, err := halt.ReadSentinel(rt.Root, live.HaltSentinel, scope); err == nil && a != nil && snap.HaltReason == "" {
			snap.HaltReason = session.HaltLine(a, scope)
		}
	}
	if mc := b.mandateCheck(ctx); !mc.Verified() {
		snap.MandateState = mc.State
		if mc.State != live.MandateMissing {
			snap.MandateErr = mc.Describe()
		}
	} else {
		snap.Mandate, snap.MandateState = mc.Mandate, mc.State
		snap.Expires, _ = mc.Mandate.Expiry()
		snap.Committed, _ = live.ParseExpiry(mc.Mandate.Consent.CreatedAt)
	}
	snap.OrdersToday, _ = counter.DailyCount(ctx, rt.Root, rt.DB, key, now)
	b.ownerView(ctx, &snap)
	if items, err := rt.DB.Approvals(ctx, store.ApprovalPending, 200); err == nil {
		for _, a := range items {
			snap.Reviews = append(snap.Reviews, store.ReviewItem(a))
		}
	}
	snap.Audit, snap.AuditTotal = b.auditTail(ctx)
	return snap
}

// ownerView fills what the owner publishes, and says who owns the account or that it is gone.
func (b *Backend) ownerView(ctx context.Context, snap *readmodel.Snapshot) {
	o, alive, err := b.Owner(ctx)
	if err != nil {
		snap.BrokerErr = "owner unreadable: " + err.Error()
		return
	}
	now := b.Now()
	if !alive {
		b.mu.Lock()
		b.firstWatch = time.Time{} // a later owner is watched anew
		b.mu.Unlock()
		b.fill(snap, b.lastLive(ctx)) // the last published state, said to be old below
		gone := "no process owns " + b.key
		if o.PID != 0 {
			gone = fmt.Sprintf("%s pid %d: no heartbeat for %s", o.Kind, o.PID, now.Sub(o.HeartbeatAt).Round(time.Second))
		}
		snap.OwnerGone = true
		snap.Supervising = "SUPERVISING — OWNER GONE (" + gone + ")"
		snap.Warnings = append(snap.Warnings, "owner gone: "+gone+"; what shows is its last published state; X flattens with the broker itself")
		return
	}
	first := b.watch(ctx, now)
	ls, at := b.liveState(ctx)
	who := o.Agent + " agent"
	switch {
	case len(ls.Clients) > 0:
		who = strings.Join(ls.Clients, ", ")
	case o.Kind == "serve-mcp":
		who = "no MCP client connected"
	}
	snap.Supervising = fmt.Sprintf("SUPERVISING %s pid %d (%s)", o.Kind, o.PID, who)
	switch {
	case now.Sub(at) <= session.OwnerStale:
		b.fill(snap, ls)
	case now.Sub(first) <= session.OwnerStale: // just attached: the owner publishes within a beat
	default:
		snap.BrokerErr = "the owner publishes no live state"
		if !at.IsZero() {
			snap.BrokerErr += fmt.Sprintf(" (the last is %s old)", now.Sub(at).Round(time.Second))
		}
	}
}

// fill copies the owner's live state into the snapshot.
func (b *Backend) fill(snap *readmodel.Snapshot, ls session.LiveState) {
	snap.Agent, snap.Paused, snap.PauseWhy, snap.PauseTill, snap.Blocked = ls.Agent, ls.Paused, ls.PauseWhy, ls.PauseTill, ls.Blocked
	if len(ls.Clients) > 0 {
		snap.Agent = strings.Join(ls.Clients, ", ")
	}
	snap.BrokerErr, snap.Latency, snap.Positions, snap.Orders, snap.Account = ls.BrokerErr, ls.Latency, ls.Positions, ls.Orders, ls.Account
	for k, q := range ls.Quotes {
		snap.Quotes[k] = q
	}
	snap.Origins, snap.Trails = ls.Origins, ls.Trails
	snap.LargestOrder, snap.LastOrder, snap.Breaches = ls.LargestOrder, ls.LastOrder, ls.Breaches
	snap.StartEquity, snap.DayEquity, snap.Realized = ls.StartEquity, ls.DayEquity, ls.Realized
	if ls.OwnerHalt != "" {
		snap.State, snap.HaltReason = live.Halted, ls.OwnerHalt
	}
}

// lastLive is the owner's last published live state, whatever its age.
func (b *Backend) lastLive(ctx context.Context) session.LiveState {
	ls, _ := b.liveState(ctx)
	return ls
}

// liveState re-reads the owner's live state only when its version moved; it also returns
// when the owner last published it.
func (b *Backend) liveState(ctx context.Context) (session.LiveState, time.Time) {
	db := b.rt.DB
	v, at, err := db.LiveStateVersion(ctx, b.key)
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil {
		return b.ls, b.lsAt
	}
	b.lsAt = at
	if v == b.lsVer {
		return b.ls, at
	}
	v, body, err := db.LiveState(ctx, b.key)
	if err != nil {
		return b.ls, at
	}
	var ls session.LiveState
	if err := decodeJSON(body, &ls); err != nil {
		ls = session.LiveState{BrokerErr: "the owner's live state is unreadable: " + err.Error()}
	}
	b.ls, b.lsVer = ls, v
	return ls, at
}

// watch stamps the owner row (at most every second: the owner publishes its live state only
// while watched) and returns when this supervisor started watching.
func (b *Backend) watch(ctx context.Context, now time.Time) time.Time {
	b.mu.Lock()
	due := now.Sub(b.watched) >= time.Second
	if due {
		b.watched = now
	}
	if b.firstWatch.IsZero() {
		b.firstWatch = now
	}
	first := b.firstWatch
	b.mu.Unlock()
	if due {
		if err := b.rt.DB.WatchOwner(ctx, b.key, now); err != nil {
			b.rt.Log.Error("supervise: stamp the owner row", "err", err)
		}
	}
	return first
}

// auditTail keeps the newest 60 events (successful reads left out), reading only the rows
// appended since the last call.
func (b *Backend) auditTail(ctx context.Context) ([]readmodel.AuditRow, int64) {
	db := b.rt.DB
	last, err := db.LastSeq(ctx)
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil || last == b.tailSeq && b.tail != nil {
		return b.tail, b.tailSeq
	}
	evs, err := db.Events(ctx, store.Filter{AfterSeq: b.tailSeq, Limit: 300})
	if err != nil {
		return b.tail, b.tailSeq
	}
	rows := make([]readmodel.AuditRow, 0, 60)
	for _, e := range evs {
		if e.Type == live.KindToolCall && e.Outcome == live.OutcomeAccepted {
			continue
		}
		if rows = append(rows, session.AuditRow(e)); len(rows) == 60 {
			break
		}
	}
	rows = append(rows, b.tail...)
	if len(rows) > 60 {
		rows = rows[:60]
	}
	if len(evs) > 0 && evs[0].Seq > last { // appended between the two reads
		last = evs[0].Seq
	}
	b.tail, b.tailSeq = rows, last
	return rows, last
}

// mandateSeen is the last mandate check and what it depended on: the bytes of mandate.json
// (their hash) and the audit trail (its last seq, which a commit moves).
type mandateSeen struct {
	hash  string
	seq   int64
	check live.MandateCheck
}

// mandateCheck is mandatefile.Read, answered again while the file and the audit trail are
// unchanged (as the session's screen does); a check that failed to read is never kept.
func (b *Backend) mandateCheck(ctx context.Context) live.MandateCheck {
	rt := b.rt
	seq, serr := rt.DB.LastSeq(ctx)
	if data, err := os.ReadFile(rt.Root.MandatePath(b.key)); err == nil && serr == nil {
		b.mu.Lock()
		seen := b.mandate
		b.mu.Unlock()
		if seen.hash == live.MandateHash(data) && seen.seq == seq {
			return seen.check
		}
	}
	mc := mandatefile.Read(ctx, rt.Root, rt.DB, b.key)
	if serr == nil && mc.Err == nil && mc.Hash != "" {
		b.mu.Lock()
		b.mandate = mandateSeen{hash: mc.Hash, seq: seq, check: mc}
		b.mu.Unlock()
	}
	return mc
}

// ID is this supervisor's session id in the audit.
func (b *Backend) ID() string { return b.id }
