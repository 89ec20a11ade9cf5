package engine_test

import (
	"context"
	"testing"

	"cockpit/internal/enginetest"
	"cockpit/live"
)

// TestBlockedSymbolDeniesTheAgent: a symbol on the session block list refuses the agent's
// orders in it (symbol_blocked), audited; other symbols pass; :unblock lifts it, audited.
func TestBlockedSymbolDeniesTheAgent(t *testing.T) {
	f := enginetest.New(t)
	op := live.Operator("op", "s")
	if err := f.Engine.Block(context.Background(), op, "aapl", "close and block"); err != nil {
		t.Fatalf("block: %v", err)
	}
	if got := f.Engine.Blocked(); len(got) != 1 || got[0] != "AAPL" {
		t.Errorf("Blocked() = %v, want [AAPL]", got)
	}
	placed := f.Placed()
	if r := f.Call("place_order", enginetest.Buy("AAPL", "100")); r.Code != "symbol_blocked" || r.OK() {
		t.Errorf("agent buy in a blocked symbol: %+v, want denied symbol_blocked", r)
	}
	if got := f.Placed(); got != placed {
		t.Errorf("orders placed after the blocked call: %d, want %d", got, placed)
	}
	if r := f.Call("place_order", enginetest.Buy("MSFT", "100")); !r.OK() {
		t.Errorf("another symbol: %+v, want allowed", r)
	}
	if err := f.Engine.Unblock(context.Background(), op, "AAPL", ":unblock"); err != nil {
		t.Fatalf("unblock: %v", err)
	}
	if r := f.Call("place_order", enginetest.Buy("AAPL", "100")); !r.OK() {
		t.Errorf("after unblock: %+v, want allowed", r)
	}
	kinds := map[string]int{}
	for _, e := range f.Events() {
		kinds[e.Type]++
	}
	if kinds["symbol_blocked"] != 1 || kinds["symbol_unblocked"] != 1 {
		t.Errorf("audit kinds %v, want one symbol_blocked and one symbol_unblocked", kinds)
	}
	if err := f.Engine.Unblock(context.Background(), op, "AAPL", ""); err == nil {
		t.Error("unblocking a symbol that is not blocked: no error")
	}
}
