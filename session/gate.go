package session

import (
	"time"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/halt"
)

// GateOptions are what one of the runtime's gates adds to what every gate has: a running
// session's halt latch and watcher, the fleet's day count, what hears of an audit halt.
type GateOptions struct {
	// Latch halts like a HALT file (set when the halt watcher cannot watch).
	Latch *halt.Latch
	// WatcherReady, when set, holds every order until the halt watcher has proven itself.
	WatcherReady <-chan struct{}
	// Days is the fleet's shared day count (nil: this root's count alone).
	Days live.DayReserver
	// OnHalt is told once when the gate's audit-halt latch trips (DV15).
	OnHalt func(gate.AuditHalt)
	// StoreChecked, when set, holds every order until the store's start-up page check passed.
	StoreChecked <-chan struct{}
	// LockWait bounds the wait for the submit lock; 0 is gate.DefaultLockWait.
	LockWait time.Duration
	// OnLossLimit is told of a crossed loss limit the gate halted the broker for (a session
	// pauses its agent and publishes it); nil: the crossing is audited and the HALT written.
	OnLossLimit func(gate.LossHalt)
	// ExpectSentinel is told the path of a HALT the gate is about to write for a loss limit, so
	// a session's watcher does not audit it again as written from outside.
	ExpectSentinel func(path string)
}

// Gate builds a gate on the runtime: the one constructor of every production gate (a
// session's, a supervisor's flatten, the command line's flatten and what-ifs). Every gate it
// makes verifies the mandate against the store's ledger (DV13), counts the day from the
// counter file and the store's journal (DV14), audits to the runtime's trail, counts resting
// orders in the book its limits are checked against, and waits its turn for the submit lock;
// o adds the latches, the watcher and the fleet a running session has.
func (rt *Runtime) Gate(o GateOptions) *gate.Gate {
	wait := o.LockWait
	if wait <= 0 {
		wait = gate.DefaultLockWait
	}
	return &gate.Gate{Root: rt.Root, Now: rt.Now, Audit: rt.Audit, Journal: rt.DB, Mandates: rt.DB,
		CountOpenOrders: true, LockWait: wait, Latch: o.Latch, WatcherReady: o.WatcherReady, StoreChecked: o.StoreChecked, Days: o.Days, OnHalt: o.OnHalt,
		OnLossLimit: o.OnLossLimit, ExpectSentinel: o.ExpectSentinel}
}
