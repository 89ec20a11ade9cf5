package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cockpit/live"
	"cockpit/live/money"
	"cockpit/live/paper"
	"cockpit/store"
)

// capsDraft is a mandate without controls (no quote is needed for a notional order), with
// an exposure cap of 10,000 and trades per day as given.
func capsDraft(tradesPerDay int) string {
	return fmt.Sprintf(`{"hard_caps": {"account_funding_usd": 100000, "max_order_notional_usd": 5000, "max_total_exposure_usd": 10000,
 "max_leverage": 1, "allowed_instruments": ["equity"], "max_trades_per_day": %d},
 "universe": {"asset_classes": ["us_equity"], "min_market_cap_usd": null, "min_avg_daily_volume_usd": null, "exclude_symbols": []}}`, tradesPerDay)
}

// commitDraft commits body as the paper mandate.
func commitDraft(t *testing.T, home, body string) {
	t.Helper()
	if out, errOut, code := run(t, home, "", "mandate", "commit", "--broker", "paper", "--from", writeDraft(t, body), "--yes"); code != exitOK {
		t.Fatalf("commit: exit %d %s %s", code, out, errOut)
	}
}

// saveRestingBuys stores a paper account holding 10 AAPL (the fill) with two resting MSFT
// limit buys of 10 at 400 (8,000 together).
func saveRestingBuys(t *testing.T, home string) {
	t.Helper()
	db, err := store.Open(filepath.Join(home, "cockpit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	qty, lp := money.MustParse("10"), money.MustParse("400")
	order := func(id string) *live.Order {
		return &live.Order{ID: id, ClientOrderID: "c" + id, Symbol: "MSFT", Side: live.Buy, Type: live.Limit,
			Quantity: &qty, LimitPrice: &lp, Status: live.StatusAccepted, CreatedAt: fixedNow}
	}
	st := paper.State{Seed: 1, MarketStart: fixedNow, Cash: money.MustParse("98100"),
		Positions: map[string]*paper.PositionState{"AAPL": {Qty: money.MustParse("10"), Avg: money.MustParse("190")}},
		Orders:    map[string]*live.Order{"P000001": order("P000001"), "P000002": order("P000002")},
		ByClient:  map[string]string{"cP000001": "P000001", "cP000002": "P000002"}, Seq: 2}
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SavePaperState(context.Background(), "paper", data); err != nil {
		t.Fatal(err)
	}
}

// TestCheckLiveCountsRestingOrders is issue 28 §2's first repro: with two resting buys and a
// fill, `check --live` said ALLOW for a buy the session refuses (max_total_exposure_usd),
// because it built its own gate without the resting orders. It now runs the runtime's gate.
func TestCheckLiveCountsRestingOrders(t *testing.T) {
	home := t.TempDir()
	run(t, home, "", "init")
	commitDraft(t, home, capsDraft(40))
	saveRestingBuys(t, home)
	out, errOut, code := run(t, home, "", "check", "--live", "--symbol", "NVDA", "--side", "buy", "--notional", "1000")
	if code != exitNotAllow || !strings.Contains(out, `"verdict":"PAUSE_FOR_REAUTH"`) || !strings.Contains(out, `"limit":"max_total_exposure_usd"`) {
		t.Fatalf("check --live NVDA $1000 over 8,000 resting and a fill: exit %d %s %s, want %d and a max_total_exposure_usd PAUSE",
			code, out, errOut, exitNotAllow)
	}
	out, _, code = run(t, home, "", "orders", "--json")
	if code != exitOK || !strings.Contains(out, "P000002") {
		t.Fatalf("the resting orders are not on the book: %d %s", code, out)
	}
}

// TestCheckCountsTheDayLikeTheGate is issue 28 §2's second repro: after 3 accepted orders,
// trade_counter.json removed and a cap of 3, status said 3/3 and `check --live` PAUSE, but
// the offline `check` ALLOW: it read only the counter file. Both what-ifs count as the gate
// does (DV14: the larger of the file and the journal).
func TestCheckCountsTheDayLikeTheGate(t *testing.T) {
	home := t.TempDir()
	run(t, home, "", "init")
	commitDraft(t, home, capsDraft(3))
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
	if err := os.Remove(live.Root(home).CounterPath(live.PaperBroker)); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if out, _, _ := run(t, home, "", "status"); !strings.Contains(out, "Orders today (UTC): 3/3") {
		t.Fatalf("status:\n%s\nwant 3/3", out)
	}
	for _, mode := range [][]string{nil, {"--live"}} {
		args := append([]string{"check", "--symbol", "AAPL", "--side", "buy", "--notional", "100"}, mode...)
		out, _, code := run(t, home, "", args...)
		if code != exitNotAllow || !strings.Contains(out, `"limit":"max_trades_per_day"`) || !strings.Contains(out, `"orders_today":3`) {
			t.Errorf("%v: exit %d %s, want %d, a max_trades_per_day PAUSE and orders_today 3", args, code, out, exitNotAllow)
		}
	}
}
