package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// conformanceDir is the shared oracle vectors, ../shared/conformance from the module root,
// unless COCKPIT_CONFORMANCE_DIR says otherwise.
func conformanceDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("COCKPIT_CONFORMANCE_DIR"); d != "" {
		return d
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "conformance"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "live.json")); err != nil {
		t.Fatalf("oracle vectors not found at %s (set COCKPIT_CONFORMANCE_DIR): %v", dir, err)
	}
	return dir
}

// TestConformance runs the oracle vectors and fails on any failed case.
func TestConformance(t *testing.T) {
	var out bytes.Buffer
	sum, err := Run(conformanceDir(t), &out, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	if sum.Failed != 0 {
		t.Fatalf("conformance: %d failed\n%s", sum.Failed, out.String())
	}
	if sum.Passed == 0 {
		t.Fatal("conformance ran no case")
	}
	last := strings.TrimSpace(out.String())
	last = last[strings.LastIndex(last, "\n")+1:]
	if !strings.HasPrefix(last, "conformance: ") || !strings.HasSuffix(last, ", 0 failed") {
		t.Fatalf("last line = %q", last)
	}
}

// TestRunnerFailsOnWrongExpectation proves the runner can fail: a vector whose expectation is
// changed must be reported as a failure.
func TestRunnerFailsOnWrongExpectation(t *testing.T) {
	dir := t.TempDir()
	live := `{"check_mandate": [{"id": "tampered", "mandate": {"hard_caps": {"account_funding_usd": 5000.0,
	 "max_order_notional_usd": 750.0, "max_total_exposure_usd": 5000.0, "max_leverage": 1.0,
	 "allowed_instruments": ["equity"], "max_trades_per_day": 5}, "universe": {"asset_classes": ["us_equity"],
	 "min_market_cap_usd": null, "min_avg_daily_volume_usd": null, "exclude_symbols": []}},
	 "intent": {"symbol": "AAPL", "side": "buy", "notional_usd": 100.0, "quantity": null, "instrument_type": "equity", "asset_class": null},
	 "positions": [], "balance": null, "daily_count": 0, "universe_data": null,
	 "expected": {"kind": "quantitative", "limit": "max_order_notional_usd", "limit_value": 750.0, "attempted_value": 100.0,
	  "overage": -650.0, "detail": "", "verdict": "PAUSE_FOR_REAUTH"}, "expected_provider_calls": []}],
	 "mystery": [{"id": 1}]}`
	if err := os.WriteFile(filepath.Join(dir, "live.json"), []byte(live), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sum, err := Run(dir, &out, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sum.Failed, 1; got != want {
		t.Fatalf("failed = %d, want %d\n%s", got, want, out.String())
	}
	if !strings.Contains(out.String(), "mystery: skipped (not a category this runner knows)") {
		t.Errorf("unknown category not reported:\n%s", out.String())
	}
}
