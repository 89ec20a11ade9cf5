package tui

import (
	"strings"
	"testing"

	"cockpit/engine"
	"cockpit/live"
)

// TestApprovalCardAndOutcome is issue 10 item 7 on the screen: the card lists every breach
// the order had when it was asked, and after `a`,`y` the screen does not say "done" but what
// the re-checked order did: here, that the approval did not go through and why.
func TestApprovalCardAndOutcome(t *testing.T) {
	m, be, _ := newTestModel(t, 120, 40)
	snap := be.snap
	it := &snap.Reviews[0]
	it.Breaches = []live.ReviewBreach{
		{Limit: "max_order_notional_usd", LimitValue: "5000", Attempted: "6000"},
		{Limit: "max_trades_per_day", LimitValue: "40", Attempted: "41"},
	}
	be.snap = snap
	m.Update(SnapshotMsg{Snapshot: snap, OneOff: true})
	press(m, "4", "a")
	card := screen(m)
	for _, want := range []string{"max_order_notional_usd = 5000; this order makes it 6000", "max_trades_per_day = 40; this order makes it 41"} {
		if !strings.Contains(card, want) {
			t.Errorf("the card lacks %q:\n%s", want, card)
		}
	}
	run(m, press(m, "y"))
	if got := screen(m); strings.Contains(got, "ap_0001: done") {
		t.Errorf("the screen says done before the gate ran the order again:\n%s", got)
	}
	out := *it
	out.State, out.Outcome = live.ReviewApproved, "approval did not go through: max_trades_per_day 40/40 used today"
	m.Update(EngineMsg(engine.Event{Kind: engine.EvReviewOutcome, Review: &out, Gen: m.data.gen}))
	got := screen(m)
	if !strings.Contains(got, "approval did not go through: max_trades_per_day 40/40") {
		t.Errorf("the screen does not say the approval did not go through:\n%s", got)
	}
}
