package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/money"
	"cockpit/session"
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

// restingBuysAndAFill trades the paper account through its own broker (as a session would):
// a market buy of 10 AAPL that fills, and two MSFT limit buys of 10 at 380 (7,600 together,
// well under the market) that rest.
func restingBuysAndAFill(t *testing.T, home string) {
	t.Helper()
	rt, err := session.OpenRuntime(session.Env{Now: func() time.Time { return fixedNow }, Getenv: func(string) string { return "" }, Stderr: io.Discard}, live.Root(home))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	release, err := rt.OwnAccount(live.PaperBroker)
	if err != nil {
		t.Fatal(err)
	}
	b, release, err := rt.OpenOwnedBroker(live.PaperBroker, release)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx := context.Background()
	ten, lp := money.MustParse("10"), money.MustParse("380")
	reqs := []live.OrderRequest{
		{ClientOrderID: "fill", Symbol: "AAPL", Side: live.Buy, Type: live.Market, Quantity: &ten},
		{ClientOrderID: "rest1", Symbol: "MSFT", Side: live.Buy, Type: live.Limit, Quantity: &ten, LimitPrice: &lp},
		{ClientOrderID: "rest2", Symbol: "MSFT", Side: live.Buy, Type: live.Limit, Quantity: &ten, LimitPrice: &lp},
	}
	for _, r := range reqs {
		if _, err := b.PlaceOrder(ctx, r); err != nil {
			t.Fatalf("%s: %v", r.ClientOrderID, err)
		}
	}
	if orders, err := b.OpenOrders(ctx); err != nil || len(orders) != 2 {
		t.Fatalf("resting orders: %d, %v; want the two MSFT buys", len(orders), err)
	}
	if pos, err := b.Positions(ctx); err != nil || len(pos) != 1 {
		t.Fatalf("positions: %+v, %v; want the AAPL fill", pos, err)
	}
}

// TestCheckLiveCountsRestingOrders is issue 28 §2's first repro: with two resting buys and a
// fill, `check --live` said ALLOW for a buy the session refuses (max_total_exposure_usd: about
// 1,914 held + 7,600 resting + 1,000 > 10,000), because it built its own gate without the
// resting orders. It now runs the runtime's gate.
func TestCheckLiveCountsRestingOrders(t *testing.T) {
	home := t.TempDir()
	run(t, home, "", "init")
	commitDraft(t, home, capsDraft(40))
	restingBuysAndAFill(t, home)
	out, errOut, code := run(t, home, "", "check", "--live", "--symbol", "NVDA", "--side", "buy", "--notional", "1000")
	if code != exitNotAllow || !strings.Contains(out, `"verdict":"PAUSE_FOR_REAUTH"`) || !strings.Contains(out, `"limit":"max_total_exposure_usd"`) {
		t.Fatalf("check --live NVDA $1000 over 7,600 resting and a fill: exit %d %s %s, want %d and a max_total_exposure_usd PAUSE",
			code, out, errOut, exitNotAllow)
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
