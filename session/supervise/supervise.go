// Package supervise is the screen's backend for a root whose broker account another process
// owns (issue 14): it reads the sentinels, the mandate, the store and the owner's published
// live state, writes sentinels itself, and sends cancel, close, flatten, block and unblock to
// the owner through the store's command queue; with the owner gone it flattens itself.
package supervise

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"cockpit/readmodel"

	"cockpit/live"
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

	read *readmodel.Reader // the account's read model, the owner's part from its live state

	mu      sync.Mutex
	lsVer   int64     // the live state version read
	lsAt    time.Time // when the owner last published it
	watched time.Time // this supervisor's last stamp on the owner row
	// firstWatch is when this supervisor first watched a live owner.
	firstWatch time.Time
	ls         readmodel.Owned // the owner's live state at lsVer

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
	b := &Backend{rt: rt, key: k, id: live.RandomID("sup"), Now: rt.Now,
		operator: strings.Replace(session.OperatorName(), "cli", "tui", 1)}
	b.read = &readmodel.Reader{Root: rt.Root, Broker: k, Live: rt.IsLive(k), Now: func() time.Time { return b.Now() }, DB: rt.DB, Source: b}
	return b, nil
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

// Snapshot implements tui.Backend: the account's read model, the owner's part (its broker and
// engine) from the live state it publishes.
func (b *Backend) Snapshot(ctx context.Context) readmodel.Snapshot { return b.read.Snapshot(ctx) }

// Owned implements readmodel.Source: what the owner publishes, and who owns the account or
// that it is gone.
func (b *Backend) Owned(ctx context.Context, snap *readmodel.Snapshot) { b.ownerView(ctx, snap) }

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
		// One warning per owner, worded the same every second (the heartbeat's age is on the
		// banner), so the alerts pane says it once.
		who := "no process owns " + b.key
		if o.PID != 0 {
			who = fmt.Sprintf("%s pid %d has no heartbeat", o.Kind, o.PID)
		}
		snap.Warnings = append(snap.Warnings, "owner gone: "+who+"; what shows is the last published state; X flattens with the broker itself")
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
func (b *Backend) fill(snap *readmodel.Snapshot, ls readmodel.Owned) {
	quotes := snap.Quotes
	snap.Owned = ls
	if len(ls.Clients) > 0 {
		snap.Agent = strings.Join(ls.Clients, ", ")
	}
	for k, q := range ls.Quotes {
		quotes[k] = q
	}
	snap.Quotes = quotes
}

// lastLive is the owner's last published live state, whatever its age.
func (b *Backend) lastLive(ctx context.Context) readmodel.Owned {
	ls, _ := b.liveState(ctx)
	return ls
}

// liveState re-reads the owner's live state only when its version moved; it also returns
// when the owner last published it.
func (b *Backend) liveState(ctx context.Context) (readmodel.Owned, time.Time) {
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
	var ls readmodel.Owned
	if err := decodeJSON(body, &ls); err != nil {
		ls = readmodel.Owned{BrokerErr: "the owner's live state is unreadable: " + err.Error()}
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

// ID is this supervisor's session id in the audit.
func (b *Backend) ID() string { return b.id }
