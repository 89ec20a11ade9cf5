package session

import (
	"context"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/money"
)

// TestLargestOrderIsTyped is issue 11 item 4: the screen's "largest order today" comes from
// the notional of the day's order events, not from a dollar figure in their summary text.
func TestLargestOrderIsTyped(t *testing.T) {
	home := t.TempDir()
	s, err := Open(testOptions(home))
	if err != nil {
		t.Fatal(err)
	}
	n := money.MustParse("1500.50")
	for _, r := range []live.AuditRecord{
		{Kind: live.KindOrderPlaced, Outcome: live.OutcomeAccepted, Broker: s.Key(), Intent: "buy 3 AAPL at market", Notional: &n},
		{Kind: live.KindOrderPlaced, Outcome: live.OutcomeAccepted, Broker: s.Key(), Intent: "note: $99999 is not a notional"},
		{Kind: live.KindOrderPlaced, Outcome: live.OutcomeAccepted, Broker: "other", Intent: "buy $5000 MSFT", Notional: ptr(money.MustParse("5000"))},
	} {
		r.Time, r.Actor = time.Now(), live.Agent("strategy", s.ID())
		if err := s.rt.Audit.Record(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s, err = Open(testOptions(home)) // the backend seeds the day's largest from the store
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := s.Backend().Snapshot(context.Background()).LargestOrder; got.Cmp(n) != 0 {
		t.Errorf("LargestOrder = %s, want %s", got, n)
	}
}

func ptr[T any](v T) *T { return &v }
