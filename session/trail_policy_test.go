package session

import (
	"context"
	"strings"
	"testing"

	"cockpit/internal/enginetest"
	"cockpit/live/jsonv"
	"cockpit/store"
)

// TestOrderTrailStartsWithThePolicy: an order the agent placed through the engine has the
// engine's policy decision (its steps and the autonomy) as the first step of its trail,
// joined by the client order id the gate assigned, before the gate's own step (issue 12).
func TestOrderTrailStartsWithThePolicy(t *testing.T) {
	f := enginetest.New(t)
	r := f.Call("place_order", enginetest.Buy("AAPL", "100"))
	if !r.OK() {
		t.Fatalf("place_order: %+v", r)
	}
	o, _ := r.Data.(*jsonv.Object)
	coid, _ := o.Value("client_order_id").(string)
	if coid == "" {
		t.Fatalf("no client order id in %v", r.Data)
	}
	events, err := f.DB.Events(context.Background(), store.Filter{OrderID: coid, Ascending: true, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	tr := trailOf(events)
	if len(tr.Steps) < 2 {
		t.Fatalf("steps %+v, want the policy then the gate", tr.Steps)
	}
	p := tr.Steps[0]
	if p.What != "policy place_order" || !strings.HasPrefix(p.Outcome, "allow (autonomy ") {
		t.Errorf("first step %+v, want the engine's policy allow with its autonomy", p)
	}
	if got, want := strings.Join(p.Checked, ","), "tool,arguments,policy,halt_flag,rate_limits"; got != want {
		t.Errorf("policy checked %q, want %q", got, want)
	}
	if g := tr.Steps[1]; !strings.HasPrefix(g.What, "order_placed") || len(g.Checked) == 0 {
		t.Errorf("second step %+v, want the gate's order_placed with its checks", g)
	}
	if tr.Reason != "test" {
		t.Errorf("reason %q, want the agent's %q", tr.Reason, "test")
	}
}
