package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"cockpit/live"
	"cockpit/live/money"
	"cockpit/live/paper"
	"cockpit/store"
)

// savePaper stores a paper account with an AAPL position and a resting MSFT limit order.
func savePaper(t *testing.T, home string) {
	t.Helper()
	db, err := store.Open(filepath.Join(home, "cockpit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	qty, lp := money.MustParse("2"), money.MustParse("1.00")
	st := paper.State{Seed: 1, MarketStart: fixedNow, Cash: money.MustParse("98100"),
		Positions: map[string]*paper.PositionState{"AAPL": {Qty: money.MustParse("10"), Avg: money.MustParse("190"), Realized: money.MustParse("-7")}},
		Orders: map[string]*live.Order{"P000001": {ID: "P000001", ClientOrderID: "c1", Symbol: "MSFT", Side: live.Buy, Type: live.Limit,
			Quantity: &qty, LimitPrice: &lp, Status: live.StatusAccepted, CreatedAt: fixedNow}},
		ByClient: map[string]string{"c1": "P000001"}, Seq: 1}
	c, err := st.Whole()
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PaperStore("paper").Save(c); err != nil {
		t.Fatal(err)
	}
}

// TestPositionsAndOrdersVerbs: `cockpit positions` and `cockpit orders` print the broker's
// book as a table and as JSON lines; while a running cockpit owns the paper account they say
// so and show its saved state, read-only (issue 12).
func TestPositionsAndOrdersVerbs(t *testing.T) {
	home := t.TempDir()
	run(t, home, "", "init")
	savePaper(t, home)
	for _, owned := range []bool{false, true} {
		if owned {
			release, err := lockPaper(live.Root(home), "paper")
			if err != nil {
				t.Fatal(err)
			}
			defer release()
		}
		out, errOut, code := run(t, home, "", "positions")
		if code != 0 || !strings.Contains(out, "SYMBOL") || !strings.Contains(out, "AAPL") || !strings.Contains(out, "-7") {
			t.Errorf("owned %v: positions: exit %d %s\n%s", owned, code, errOut, out)
		}
		if got := strings.Contains(out, "a running cockpit owns the paper account"); got != owned {
			t.Errorf("owned %v: got the in-use note %v:\n%s", owned, got, out)
		}
		out, errOut, code = run(t, home, "", "orders")
		if code != 0 || !strings.Contains(out, "P000001") || !strings.Contains(out, "MSFT") || !strings.Contains(out, "accepted") {
			t.Errorf("owned %v: orders: exit %d %s\n%s", owned, code, errOut, out)
		}
		for _, verb := range []string{"positions", "orders"} {
			out, _, code = run(t, home, "", verb, "--json")
			var v []map[string]any
			if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil || len(v) != 1 {
				t.Errorf("owned %v: %s --json: exit %d %v: %q, want an array of one", owned, verb, code, err, out)
			}
		}
	}
}
