package session

import (
	"context"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/money"
)

// TestOrderTrail: an open order's trail comes from its audit events — the agent's reason from
// the request, each gate step, the breach and the approval that let it through.
func TestOrderTrail(t *testing.T) {
	s, err := Open(testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	limit, tried := money.MustParse("1000"), money.MustParse("1190.5")
	at := time.Date(2026, 6, 1, 14, 59, 41, 0, time.UTC)
	for _, r := range []live.AuditRecord{
		{Kind: live.KindOrderPlaced, Outcome: live.OutcomeAccepted, Broker: s.Key(), Tool: "place_order", ClientOrderID: "ck1",
			ApprovalID: "ap_9", Request: map[string]any{"symbol": "AAPL", "reason": "breakout on volume"},
			Decision: &live.GateDecision{Allowed: true, Decision: live.DecisionAllow, Checked: []string{"halt", "max_order_notional"},
				Limit: "max_order_notional", Kind: "per_order", LimitValue: &limit, Attempted: &tried, Approved: "ap_9"}},
		{Kind: live.KindOrderPlaced, Outcome: live.OutcomeAccepted, Broker: s.Key(), ClientOrderID: "other"},
		{Kind: live.KindOrderPlaced, Outcome: live.OutcomeAccepted, Broker: s.Key(), ClientOrderID: "ck2", Detail: map[string]any{"agent_reason": "the gate's copy"}},
	} {
		r.Time = at
		if err := s.rt.Audit.Record(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	var c trailCache
	trails := c.of(context.Background(), s, []live.Order{{ID: "o1", ClientOrderID: "ck1"}, {ID: "o2", ClientOrderID: "ck2"}})
	if got := trails["ck2"].Reason; got != "the gate's copy" {
		t.Errorf("ck2 reason %q, want the gate's detail.agent_reason", got)
	}
	got := trails["ck1"]
	if got.Reason != "breakout on volume" {
		t.Errorf("reason %q, want %q", got.Reason, "breakout on volume")
	}
	if len(got.Steps) != 1 {
		t.Fatalf("steps %+v, want the one event of ck1", got.Steps)
	}
	st := got.Steps[0]
	if st.Time != "14:59:41" || !strings.Contains(st.What, "place_order") || strings.Join(st.Checked, ",") != "halt,max_order_notional" ||
		!strings.Contains(st.Breach, "max_order_notional") || !strings.Contains(st.Breach, "1000") || !strings.Contains(st.Breach, "1190.5") || st.Approve != "ap_9" {
		t.Errorf("step %+v", st)
	}
	if want := "max_order_notional per_order limit 1000, attempted 1190.5"; st.Breach != want {
		t.Errorf("breach %q, want %q", st.Breach, want)
	}
}

// TestOrderTrailLateRecord: an order read before its audit record lands gets its trail on a
// later snapshot instead of an empty one cached for good.
func TestOrderTrailLateRecord(t *testing.T) {
	s, err := Open(testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var c trailCache
	orders := []live.Order{{ID: "o1", ClientOrderID: "late"}}
	if got := c.of(context.Background(), s, orders)["late"]; len(got.Steps) != 0 {
		t.Fatalf("steps before any record: %+v", got.Steps)
	}
	r := live.AuditRecord{Time: time.Now(), Kind: live.KindOrderPlaced, Outcome: live.OutcomeAccepted, Broker: s.Key(), ClientOrderID: "late"}
	if err := s.rt.Audit.Record(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if got := c.of(context.Background(), s, orders)["late"]; len(got.Steps) != 1 {
		t.Errorf("steps after the record: %+v, want 1", got.Steps)
	}
}
