package session

import (
	"context"
	"testing"

	"cockpit/live/gate"
	"cockpit/live/halt"
)

type nopDays struct{}

func (nopDays) Reserve(context.Context, string, string) (int, error) { return 0, nil }
func (nopDays) Release(context.Context, string, string) error        { return nil }

// TestRuntimeGateWiresWhatProductionNeeds: the one constructor gives every gate the store's
// ledger and journal (DV13, DV14), the runtime's trail, resting orders in the book and the
// lock wait, and passes on a session's latch, watcher, fleet count and audit-halt hook.
func TestRuntimeGateWiresWhatProductionNeeds(t *testing.T) {
	root := writeConfig(t, "")
	rt, err := OpenRuntime(testOptions(string(root)).Env, root)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	latch, ready, halted := &halt.Latch{}, make(chan struct{}), false
	g := rt.Gate(GateOptions{Latch: latch, WatcherReady: ready, Days: nopDays{}, OnHalt: func(gate.AuditHalt) { halted = true }})
	checks := []struct {
		name string
		ok   bool
	}{
		{"Root", g.Root == rt.Root},
		{"Audit is the runtime's trail", g.Audit == rt.Audit},
		{"Journal is the store (DV14)", g.Journal == rt.DB},
		{"Mandates is the store's ledger (DV13)", g.Mandates == rt.DB},
		{"CountOpenOrders", g.CountOpenOrders},
		{"LockWait is the default", g.LockWait == gate.DefaultLockWait},
		{"Latch", g.Latch == latch},
		{"WatcherReady", g.WatcherReady == (<-chan struct{})(ready)},
		{"Days", g.Days == nopDays{}},
		{"Now", g.Now != nil},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("rt.Gate: %s is not wired", c.name)
		}
	}
	if g.OnHalt == nil {
		t.Fatal("rt.Gate: OnHalt is not wired")
	}
	g.TripAuditHalt(context.Canceled)
	if !halted {
		t.Error("rt.Gate: the audit-halt hook was not called")
	}
	if bare := rt.Gate(GateOptions{}); bare.Latch != nil || bare.WatcherReady != nil || bare.Days != nil || !bare.CountOpenOrders {
		t.Errorf("rt.Gate with no options: %+v, want no latch, watcher or fleet, resting orders counted", bare)
	}
}
