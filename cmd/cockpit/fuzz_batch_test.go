package main

import (
	"testing"

	"cockpit/live"
	"cockpit/live/jsonv"
)

// FuzzBatchLine: any `check --batch` line gets exactly one verdict with an id, that prints as
// JSON; an ALLOW needs a line that parses strictly with a mandate the loader accepts.
func FuzzBatchLine(f *testing.F) {
	for _, s := range []string{
		`{"id": "a", "mandate": {"hard_caps": {"account_funding_usd": 5000.0, "max_order_notional_usd": 750.0, "max_total_exposure_usd": 5000.0, "max_leverage": 1.0, "allowed_instruments": ["equity"], "max_trades_per_day": 5}, "universe": {"asset_classes": ["us_equity"], "min_market_cap_usd": null, "min_avg_daily_volume_usd": null, "exclude_symbols": []}}, "intent": {"symbol": "AAPL", "side": "buy", "notional_usd": 100.0, "instrument_type": "equity"}, "positions": [], "daily_count": 0}`,
		`{"id": "dup", "id": "dup2"}`, `{"id": 5}`, `[1]`, `{"id": "x", "mandate": {}, "intent": {}}`,
		`{"id": "f", "intent": {"notional_usd": {"$float": "nan"}}}`, `not json`, `{"a": NaN}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		res := batchLine(line, 7)
		switch res.Verdict {
		case live.Allow, live.Deny, live.PauseForReauth:
		default:
			t.Fatalf("verdict %q", res.Verdict)
		}
		if res.ID == "" {
			t.Fatal("a verdict without an id")
		}
		printed, err := jsonv.Marshal(res.JSON(), jsonv.Compact)
		if err != nil {
			t.Fatalf("verdict does not print: %v", err)
		}
		if got := res.AppendJSON(nil); string(got) != string(printed) {
			t.Fatalf("AppendJSON %s, JSON() %s", got, printed)
		}
		if res.Verdict != live.Allow {
			return
		}
		doc, err := jsonv.ParseString(line, jsonv.Options{NonFinite: true, RejectDuplicates: true})
		if err != nil {
			t.Fatalf("ALLOW for a line that does not parse strictly: %v", err)
		}
		o, _ := doc.(*jsonv.Object)
		if m, ok := o.Object("mandate"); !ok {
			t.Fatal("ALLOW without a mandate")
		} else if _, err := live.CapsFromJSON(m); err != nil {
			t.Fatalf("ALLOW under a mandate the loader refuses: %v", err)
		}
	})
}
