package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
)

// fillEvents is the trail's fill events (audit list --type fill --json): order key → count.
func fillEvents(t *testing.T, home string, env map[string]string) (map[string]int, []map[string]any) {
	t.Helper()
	out, errOut, code := runLive(t, home, env, "audit", "list", "--type", "fill", "--json", "--limit", "100000")
	if code != 0 {
		t.Fatalf("audit list: exit %d %s", code, errOut)
	}
	byOrder := map[string]int{}
	var evs []map[string]any
	if err := json.Unmarshal([]byte(out), &evs); err != nil { // one JSON array (issue 28 §2)
		t.Fatalf("audit list --json: %v\n%s", err, out)
	}
	for _, e := range evs {
		byOrder[e["order_id"].(string)]++
	}
	return byOrder, evs
}

// printedFills is the order ids of the "fill    …" lines a headless run printed.
func printedFills(out string) []string {
	var ids []string
	for _, m := range regexp.MustCompile(`(?m)^\S*\s*fill    \S+ \S+ \S+ @ \S+ \(order (\S+), `).FindAllStringSubmatch(out, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// TestHeadlessPaperFillsInTheTrail is issue 29 item 3's repro on the paper broker: a headless
// run prints its fills ("fill    buy …"); each is an audit event of type fill, once (before,
// the trail had no fill events at all).
func TestHeadlessPaperFillsInTheTrail(t *testing.T) {
	home := fastHome(t, "")
	out, errOut, code := runLive(t, home, nil, "run", "--headless", "--agent", "strategy", "--for", "2s")
	if code != 0 {
		t.Fatalf("run: exit %d %s\n%s", code, errOut, out)
	}
	printed := printedFills(out)
	if len(printed) == 0 {
		t.Fatalf("the run printed no fill:\n%s", out)
	}
	byOrder, evs := fillEvents(t, home, nil)
	for _, id := range printed {
		if byOrder[id] != 1 {
			t.Errorf("order %s: printed as filled, %d fill events in the trail; want 1", id, byOrder[id])
		}
	}
	for _, e := range evs {
		p := e["payload"].(map[string]any)["detail"].(map[string]any)
		if e["broker"] != "paper" || p["price"] == nil || p["qty"] == nil || p["symbol"] == nil || p["side"] == nil || p["fee"] == nil {
			t.Errorf("fill event lacks a field: %v", e)
		}
	}
}

// TestTradesAndPnLAgreeWithThePaperBook: after a headless paper run, `trades --json` lists
// every fill of the trail, and the FIFO positions `pnl` ends the day with are the paper
// account's positions, symbol by symbol.
func TestTradesAndPnLAgreeWithThePaperBook(t *testing.T) {
	home := fastHome(t, "")
	if out, errOut, code := runLive(t, home, nil, "run", "--headless", "--agent", "strategy", "--for", "2s"); code != 0 {
		t.Fatalf("run: exit %d %s\n%s", code, errOut, out)
	}
	_, evs := fillEvents(t, home, nil)
	out, errOut, code := runLive(t, home, nil, "trades", "--json")
	var trades struct {
		Fills []struct {
			State string `json:"state"`
		} `json:"fills"`
		RoundTrips []any `json:"round_trips"`
		Lots       string
	}
	if code != 0 || json.Unmarshal([]byte(out), &trades) != nil {
		t.Fatalf("trades --json: exit %d %s\n%s", code, errOut, out)
	}
	if len(trades.Fills) != len(evs) || len(evs) == 0 {
		t.Errorf("trades lists %d fills, the trail holds %d", len(trades.Fills), len(evs))
	}
	pos, _, _ := runLive(t, home, nil, "positions", "--json")
	book := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(pos), "\n") {
		var p struct {
			Symbol string      `json:"symbol"`
			Qty    json.Number `json:"qty"`
		}
		if line != "" && json.Unmarshal([]byte(line), &p) == nil {
			book[p.Symbol] = p.Qty.String()
		}
	}
	out, _, code = runLive(t, home, nil, "pnl", "--days", "1", "--json")
	var pnl struct {
		Days []struct {
			Open []struct {
				Symbol string      `json:"symbol"`
				Qty    json.Number `json:"qty"`
			} `json:"open"`
		} `json:"days"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &pnl) != nil || len(pnl.Days) != 1 {
		t.Fatalf("pnl --json: exit %d\n%s", code, out)
	}
	fifo := map[string]string{}
	for _, p := range pnl.Days[0].Open {
		fifo[p.Symbol] = p.Qty.String()
	}
	if len(fifo) != len(book) {
		t.Errorf("FIFO positions %v, paper positions %v", fifo, book)
	}
	for sym, q := range book {
		if fifo[sym] != q {
			t.Errorf("%s: FIFO position %s, the paper account holds %s", sym, fifo[sym], q)
		}
	}
	text, _, _ := runLive(t, home, nil, "trades")
	for _, want := range []string{"Trades on ", "round trips matched FIFO", "fills, ", "Fees: "} {
		if !strings.Contains(text, want) {
			t.Errorf("trades lacks %q:\n%s", want, text)
		}
	}
}

// TestTradesAndPnLOnAnEmptyTrail: every --json output is valid JSON also when there is
// nothing to list; the text says so.
func TestTradesAndPnLOnAnEmptyTrail(t *testing.T) {
	home := t.TempDir()
	out, errOut, code := run(t, home, "", "trades", "--json", "--day", "2026-05-31")
	var v map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil {
		t.Fatalf("trades --json: exit %d %s\n%s", code, errOut, out)
	}
	if f, ok := v["fills"].([]any); !ok || len(f) != 0 || v["day"] != "2026-05-31" || v["broker"] != nil {
		t.Errorf("trades --json on an empty trail = %s", out)
	}
	out, _, code = run(t, home, "", "pnl", "--json", "--days", "3", "--broker", "alpaca")
	var p struct {
		Broker string
		Days   []struct{ Day string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &p) != nil || len(p.Days) != 3 || p.Days[2].Day != "2026-06-01" || p.Broker != "alpaca" {
		t.Fatalf("pnl --json: exit %d\n%s", code, out)
	}
	if out, _, _ := run(t, home, "", "trades"); !strings.Contains(out, "Trades on 2026-06-01 (UTC), every broker") || !strings.Contains(out, "No fills that day.") {
		t.Errorf("trades on an empty trail:\n%s", out)
	}
}

func TestTradesAndPnLUsage(t *testing.T) {
	home := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"trades", "--day", "2026-13-01"}, `--day "2026-13-01": want a UTC day as YYYY-MM-DD`},
		{[]string{"trades", "--broker", "../x"}, "--broker"},
		{[]string{"pnl", "--days", "0"}, "--days 0: want 1 to 366"},
		{[]string{"pnl", "--days", "400"}, "--days 400: want 1 to 366"},
	} {
		if _, errOut, code := run(t, home, "", c.args...); code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d %q, want %d and %q", c.args, code, errOut, exitUsage, c.want)
		}
	}
}

// TestAlpacaFillsInTheTrail: the fills of Alpaca's trade-updates stream (the fake's SSE) are
// fill events, one per fill, with the order's filled quantity.
func TestAlpacaFillsInTheTrail(t *testing.T) {
	env := map[string]string{"E2E_ALPACA_KEY": e2eKey, "E2E_ALPACA_SECRET": e2eSecret}
	home, _ := alpacaHome(t, "key_env = \"E2E_ALPACA_KEY\"\nsecret_env = \"E2E_ALPACA_SECRET\"\n", env)
	filled := func(out string) bool { return len(printedFills(out)) >= 2 }
	out, errOut, code, _ := runLiveUntil(t, home, env, filled, time.Minute, "run", "--headless")
	if code != 0 || !filled(out) {
		t.Fatalf("run: exit %d %s\n%s", code, errOut, out)
	}
	byOrder, evs := fillEvents(t, home, env)
	for _, id := range printedFills(out) {
		if byOrder[id] != 1 {
			t.Errorf("order %s: printed as filled, %d fill events; want 1", id, byOrder[id])
		}
	}
	for _, e := range evs {
		d := e["payload"].(map[string]any)["detail"].(map[string]any)
		if e["broker"] != "alpaca" || d["order_filled_qty"] == nil || d["price"] == nil {
			t.Errorf("fill event = %v, want alpaca's with the order's filled quantity and a price", e)
		}
	}
}
