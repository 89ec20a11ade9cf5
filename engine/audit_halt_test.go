package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"cockpit/internal/enginetest"
	"cockpit/live"
	"cockpit/live/halt"
)

// failingToolAudit refuses the engine's own tool-call records (the gate keeps its own sink).
type failingToolAudit struct{}

func (failingToolAudit) Record(context.Context, live.AuditRecord) error {
	return errors.New("events: constraint failed")
}

// TestEngineAuditFailureHalts is issue 10 item 3 (DV15): when the engine cannot write its own
// record of a tool call, the gate's latch trips HALTED audit_unavailable, the agent is paused
// and the next order is not sent.
func TestEngineAuditFailureHalts(t *testing.T) {
	f := enginetest.New(t)
	f.CheckTerminal = false
	f.Engine.Audit = failingToolAudit{}
	f.Call("get_quote", map[string]any{"symbol": "AAPL"})
	r := f.Call("place_order", enginetest.Buy("AAPL", "100"))
	if r.Decision != "deny" || r.Code != live.ReasonAuditUnavailable {
		t.Fatalf("order after a lost tool-call record: got %s %s (%s), want deny %s", r.Decision, r.Code, r.Detail, live.ReasonAuditUnavailable)
	}
	if a, _ := halt.ReadSentinel(f.Root, live.HaltSentinel, live.GlobalScope); a == nil || !strings.HasPrefix(a.Reason, string(live.ReasonAuditUnavailable)) {
		t.Fatalf("global HALT %+v, want one with reason %s", a, live.ReasonAuditUnavailable)
	}
	if _, err := halt.Clear(f.Root, live.HaltSentinel, live.GlobalScope); err != nil {
		t.Fatal(err)
	}
	if r := f.Call("place_order", enginetest.Buy("AAPL", "100")); r.Code != live.ReasonAuditUnavailable {
		t.Fatalf("order after the HALT file was removed: got %s %s, want deny %s", r.Decision, r.Code, live.ReasonAuditUnavailable)
	}
	if open, _ := f.Paper.OpenOrders(context.Background()); len(open) != 0 {
		t.Fatalf("the broker has %d orders", len(open))
	}
	if pos, _ := f.Paper.Positions(context.Background()); len(pos) != 0 {
		t.Fatalf("the broker has %d positions", len(pos))
	}
	if h, ok := f.Gate.Latched(); !ok || h.Reason != live.ReasonAuditUnavailable {
		t.Fatalf("latch %+v %v", h, ok)
	}
	if !f.Engine.Paused() {
		t.Fatal("the agent is not paused")
	}
}
