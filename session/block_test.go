package session

import (
	"context"
	"testing"

	"cockpit/store"
)

// TestBackendBlock (issue 12): the screen's Block reaches the engine (the agent's orders in
// the symbol are denied symbol_blocked), shows in the snapshot, is audited as the operator's,
// and Unblock lifts it.
func TestBackendBlock(t *testing.T) {
	s, err := Open(testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b, ctx := s.Backend(), context.Background()
	if err := b.Block(ctx, "tsla", "close and block"); err != nil {
		t.Fatalf("block: %v", err)
	}
	if got := b.Snapshot(ctx).Blocked; len(got) != 1 || got[0] != "TSLA" {
		t.Errorf("snapshot Blocked = %v, want [TSLA]", got)
	}
	r := s.eng.NewTurn("strategy").Call(ctx, "place_order", map[string]any{"symbol": "TSLA", "side": "buy", "notional": "100"})
	if r.Code != "symbol_blocked" {
		t.Errorf("agent order in a blocked symbol: %+v, want symbol_blocked", r)
	}
	if err := b.Unblock(ctx, "TSLA", ":unblock"); err != nil {
		t.Fatalf("unblock: %v", err)
	}
	if got := b.Snapshot(ctx).Blocked; len(got) != 0 {
		t.Errorf("after unblock: %v", got)
	}
	evs, err := s.rt.DB.Events(ctx, store.Filter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, e := range evs {
		kinds[e.Type] = e.ActorKind
	}
	if kinds["symbol_blocked"] != "operator" || kinds["symbol_unblocked"] != "operator" {
		t.Errorf("audit %v, want symbol_blocked and symbol_unblocked by the operator", kinds)
	}
}
