package wasmplugin_test

import (
	"testing"
	"time"

	"cockpit/engine"
	"cockpit/live"
	"cockpit/store"
)

// The tick budget measures the plugin's own time: a host call that waits for a human's
// review (here twice the budget) does not use it up. The "ungranted" module places an order
// and then calls get_account; with both granted and the plugin supervised, its order waits
// in the review queue, is approved, and reaches the broker, and the plugin keeps running.
func TestReviewWaitIsNotThePluginsTime(t *testing.T) {
	p := setup(t, "ungranted", manifest("ungranted", `"place_order", "get_account"`, 256, "1s"))
	g := p.f.Engine.Policy.Grants[p.a.Name()]
	sup := engine.Supervised
	g.Autonomy = &sup
	p.f.Engine.Policy.Grants[p.a.Name()] = g
	done := p.f.Human(func(a store.Approval) {
		time.Sleep(2 * time.Second) // the human takes longer than the tick budget
		p.f.Resolve(store.ApprovalApproved, "ok")(a)
	})
	if err := p.tick(t); err != nil {
		t.Fatalf("tick: %v", err)
	}
	<-done
	if p.a.Disabled() != "" {
		t.Fatalf("disabled: %s", p.a.Disabled())
	}
	if got := p.f.Placed(); got != 1 {
		t.Errorf("orders at the broker = %d, want 1 (approved)", got)
	}
	placed, account := 0, 0
	for _, e := range p.f.Events() {
		switch {
		case e.ActorID == "plugin:ungranted" && e.Type == live.KindOrderPlaced:
			placed++
		case e.ActorID == "plugin:ungranted" && e.Tool == "get_account":
			account++
		}
	}
	if placed != 1 || account != 1 {
		t.Errorf("audited: %d orders placed, %d get_account calls; want 1 and 1", placed, account)
	}
}
