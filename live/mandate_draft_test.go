package live

import (
	"testing"

	"cockpit/live/jsonv"
)

// TestDefaultPaperDraftRoundTrips: the one default paper mandate serialises to a document the
// strict loader accepts, with the five-second quote age, and reads back to the same document.
func TestDefaultPaperDraftRoundTrips(t *testing.T) {
	d := DefaultPaperDraft()
	b, err := d.JSON()
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonv.Parse(b, jsonv.Options{RejectDuplicates: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckMandateKeys(v.(*jsonv.Object)); err != nil {
		t.Fatalf("unknown keys in %s: %v", b, err)
	}
	m, err := CapsFromJSON(v.(*jsonv.Object))
	if err != nil {
		t.Fatalf("the loader rejects %s: %v", b, err)
	}
	if got := *m.Controls.MaxQuoteAgeMs; got != 5000 {
		t.Errorf("max_quote_age_ms = %d, want 5000", got)
	}
	again, err := DraftOf(m).JSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(b) {
		t.Errorf("round trip:\n got %s\nwant %s", again, b)
	}
	want := `{"hard_caps":{"account_funding_usd":100000,"max_order_notional_usd":5000,"max_total_exposure_usd":60000,"max_leverage":1,"allowed_instruments":["equity","etf"],"max_trades_per_day":40},"universe":{"asset_classes":["us_equity","us_etf"],"min_market_cap_usd":null,"min_avg_daily_volume_usd":null,"exclude_symbols":["GME"]},"flatten_on_halt":false,"controls":{"price_collar_bps":50,"max_quote_age_ms":5000,"duplicate_window_ms":2000,"max_orders_per_minute":12,"approval_timeout_s":300}}`
	if string(b) != want {
		t.Errorf("document:\n got %s\nwant %s", b, want)
	}
}

// TestDraftWithoutControls writes no controls object when none is set.
func TestDraftWithoutControls(t *testing.T) {
	d := DefaultPaperDraft()
	d.Controls = Controls{}
	if d.HasControls() || d.Document().Has("controls") {
		t.Errorf("controls written: %s", jsonv.MustMarshal(d.Document(), jsonv.Compact))
	}
}
