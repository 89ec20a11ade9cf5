package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cockpit/live"
	"cockpit/live/money"
	"cockpit/store"
)

// TestStatusCountsLikeTheGate (review of issue 10 item 4): status's "orders today" is the
// gate's count, the larger of the counter file and the journal (DV14). With three accepted
// orders journaled and trade_counter.json deleted, status said 0/40 while the gate counted 3.
func TestStatusCountsLikeTheGate(t *testing.T) {
	home := t.TempDir()
	if _, e, code := run(t, home, "", "init"); code != 0 {
		t.Fatalf("init: %d %s", code, e)
	}
	db, err := store.Open(filepath.Join(home, "cockpit.db"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	qty := money.FromInt(1)
	for i := range 3 {
		id := fmt.Sprintf("ck_%d", i)
		e := live.JournalEntry{ClientOrderID: id, Broker: live.PaperBroker, Actor: live.Agent("strategy", "s1"),
			Request: live.OrderRequest{ClientOrderID: id, Symbol: "AAPL", Side: live.Buy, Type: live.Market, Quantity: &qty}, Created: fixedNow}
		if err := db.Begin(ctx, e); err != nil {
			t.Fatal(err)
		}
		if err := db.Finish(ctx, id, live.JournalAccepted, "o"+id, "", fixedNow); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	os.Remove(live.Root(home).CounterPath(live.PaperBroker))
	b := statusJSON(t, home)["brokers"].([]any)[0].(map[string]any)
	if got := b["orders_today"]; got != float64(3) {
		t.Errorf("status orders_today = %v, want 3 (the journal's accepted orders)", got)
	}
	out, _, _ := run(t, home, "", "status")
	if want := "Orders today (UTC): 3/40"; !strings.Contains(out, want) {
		t.Errorf("status says:\n%s\nwant %q", out, want)
	}
}
