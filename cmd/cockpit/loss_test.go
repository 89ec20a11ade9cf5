package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"cockpit/live/jsonv"
)

const lossDraft = `{"hard_caps": {"account_funding_usd": 100000, "max_order_notional_usd": 5000, "max_total_exposure_usd": 100000,
 "max_leverage": 1, "allowed_instruments": ["equity"], "max_trades_per_day": 5},
 "universe": {"asset_classes": ["us_equity"], "min_market_cap_usd": null, "min_avg_daily_volume_usd": null, "exclude_symbols": []},
 "controls": {"max_daily_loss_usd": 500, "max_drawdown_pct": 2}}`

func verdictJSON(t *testing.T, out string) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("verdict: %v\n%s", err, out)
	}
	return v
}

// TestStatusAndCheckExplainLossLimits: status shows each loss limit with the day's baseline
// and the equity it halts below; check values them offline (--equity, against the gate's day
// mark) and live (the broker's equity), explains them, and denies as the gate would.
func TestStatusAndCheckExplainLossLimits(t *testing.T) {
	home := t.TempDir()
	if _, e, code := run(t, home, "", "init"); code != 0 {
		t.Fatalf("init: %d %s", code, e)
	}
	if out, _, code := run(t, home, "paper\n", "mandate", "commit", "--broker", "paper", "--from", writeDraft(t, lossDraft)); code != 0 {
		t.Fatalf("commit: %d %s", code, out)
	}
	b := statusJSON(t, home)["brokers"].([]any)[0].(map[string]any)
	lo, _ := b["loss_limits"].(map[string]any)
	if lo == nil || lo["day_start_equity"] != nil || len(lo["limits"].([]any)) != 2 {
		t.Fatalf("status loss_limits before any read = %v, want two limits and no baseline", b["loss_limits"])
	}
	if out, _, _ := run(t, home, "", "status"); !strings.Contains(out, "Loss:      max_daily_loss_usd 500 — no equity read yet on 2026-06-01") {
		t.Fatalf("status text:\n%s", out)
	}

	order := []string{"check", "--symbol", "AAPL", "--side", "buy", "--notional", "100"}
	out, _, code := run(t, home, "", order...)
	if v := verdictJSON(t, out); code != exitNotAllow || v["kind"] != "data" || v["limit"] != "max_daily_loss_usd" {
		t.Fatalf("offline check without an equity: exit %d %v, want a data DENY", code, v)
	}
	out, errOut, code := run(t, home, "", append(order, "--live", "--explain")...)
	v := verdictJSON(t, out)
	if code != exitOK || v["verdict"] != "ALLOW" || v["loss_limits"].(map[string]any)["day_start_equity"] != float64(100000) {
		t.Fatalf("live check: exit %d %v, want ALLOW with the day's start 100000", code, v)
	}
	if !strings.Contains(errOut, "Loss limits: daily loss 0 USD ≤ limit 500") {
		t.Fatalf("--explain does not explain the loss limits:\n%s", errOut)
	}

	b = statusJSON(t, home)["brokers"].([]any)[0].(map[string]any)
	if got := b["loss_limits"].(map[string]any)["limits"].([]any)[0].(map[string]any)["halt_below_equity"]; got != float64(99500) {
		t.Fatalf("status halt_below_equity = %v, want 99500 (the paper account's day start less 500)", got)
	}
	if out, _, _ := run(t, home, "", "status"); !strings.Contains(out, "max_daily_loss_usd 500 — day start equity 100000 on 2026-06-01: HALTs below 99500") {
		t.Fatalf("status text:\n%s", out)
	}
	out, _, code = run(t, home, "", append(order, "--equity", "99400")...)
	if v := verdictJSON(t, out); code != exitNotAllow || v["kind"] != "loss_limit" || v["attempted_value"] != float64(600) {
		t.Fatalf("offline check at equity 99400: exit %d %v, want DENY loss_limit at 600", code, v)
	}
}

// TestStatusLossLinesEscaped: the status text's loss lines are printed like every other status
// line, through the terminal escaping (an error read from a file or the store is outside text).
func TestStatusLossLinesEscaped(t *testing.T) {
	var out bytes.Buffer
	a := NewApp(strings.NewReader(""), &out, &out)
	lo := jsonv.ObjectOf("day", "2026-06-01", "error", "mark \x1b]2;pwned\x07 unreadable", "limits", []any{})
	b := jsonv.ObjectOf("broker", "paper", "paper", true, "state", "TRADING", "mandate", jsonv.ObjectOf("status", "none"),
		"orders_today", jsonv.Number("0"), "max_orders_per_day", nil, "loss_limits", lo)
	a.printStatus(jsonv.ObjectOf("home", "/h", "global", jsonv.NewObject(), "brokers", []any{b}))
	if strings.ContainsAny(out.String(), "\x1b\x07") || !strings.Contains(out.String(), "Loss:      ERROR mark") {
		t.Fatalf("status text:\n%q", out.String())
	}
}
