package session

import (
	"context"
	"testing"

	"cockpit/live/jsonv"
	"cockpit/store"
)

// TestEventJSONRoundTrip (issue 28 §4): the fleet's audit stream carries each event in the
// form `audit show` prints (the same field names), and that form reads back to the very event:
// its hash recomputes to the stored one, for every event a session writes.
func TestEventJSONRoundTrip(t *testing.T) {
	s, err := Open(testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	turn := s.eng.NewTurn("strategy")
	turn.Call(ctx, "get_news", map[string]any{})
	turn.Call(ctx, "place_order", map[string]any{"symbol": "AAPL", "side": "buy", "notional": "100.25", "reason": "round trip"})
	turn.Call(ctx, "place_order", map[string]any{"symbol": "GME", "side": "buy", "notional": "100"})
	evs, err := s.rt.DB.Events(ctx, store.Filter{Limit: 100})
	if err != nil || len(evs) < 4 {
		t.Fatalf("%d events, %v", len(evs), err)
	}
	for _, e := range evs {
		raw, err := jsonv.Marshal(EventJSON(e), jsonv.Compact)
		if err != nil {
			t.Fatal(err)
		}
		seq, prev, hash, err := RehashEvent(raw)
		if err != nil || seq != e.Seq || prev != e.PrevHash || hash != e.Hash {
			t.Errorf("event %d (%s): read back seq %d prev %s hash %s (%v), want %d %s %s", e.Seq, e.Type, seq, prev, hash, err, e.Seq, e.PrevHash, e.Hash)
		}
	}
}
