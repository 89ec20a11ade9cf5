package store

import (
	"context"
	"testing"

	"cockpit/live/livetest"
)

// TestAcceptedOrdersOddRequests: a request that cannot be decoded counts (an unknown order is
// assumed to count); only a request that decodes as reduce-only is left out.
func TestAcceptedOrdersOddRequests(t *testing.T) {
	db := mustOpen(t, "")
	ctx := context.Background()
	at := livetest.Epoch.UnixNano()
	for i, req := range []string{`not json`, `{"ReduceOnly":true,"Quantity":"abc"}`, `{"ReduceOnly":true}`,
		`{"ReduceOnly":true}`, `{"ReduceOnly":false}`, `{"ReduceOnly":"true"}`} {
		if _, err := db.w.Exec(`INSERT INTO order_journal (client_order_id, broker, actor_kind, actor_id, session_id,
			request, state, created_at, updated_at) VALUES (?, 'paper', 'agent', '', '', ?, 'accepted', ?, ?)`,
			string(rune('a'+i)), req, at, at); err != nil {
			t.Fatal(err)
		}
	}
	n, err := db.AcceptedOrders(ctx, "paper", livetest.Epoch)
	if err != nil || n != 4 {
		t.Fatalf("AcceptedOrders = %d, %v; want 4 (all but the two decodable reduce-only rows)", n, err)
	}
}
