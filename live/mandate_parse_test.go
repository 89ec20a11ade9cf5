package live

import (
	"errors"
	"strings"
	"testing"

	"cockpit/live/jsonv"
)

const validMandate = `{"schema_version": 1, "mandate_id": "mandate_test",
 "hard_caps": {"account_funding_usd": 5000.0, "max_order_notional_usd": 750.0, "max_total_exposure_usd": 5000.0,
  "max_leverage": 1.0, "allowed_instruments": ["equity", "etf"], "max_trades_per_day": 5},
 "universe": {"asset_classes": ["us_equity", "us_etf"], "min_market_cap_usd": null,
  "min_avg_daily_volume_usd": null, "exclude_symbols": ["GME"]},
 "consent": {"created_at": "2026-05-02T15:00:00Z", "consent_token_sha256": "cc", "broker": "robinhood",
  "account_ref": "acct", "expires_at": "2099-01-01T00:00:00Z"}}`

func TestParseMandateValid(t *testing.T) {
	m, err := ParseMandate([]byte(validMandate))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.HardCaps.MaxOrderNotionalUSD.String(), "750"; got != want {
		t.Errorf("order cap = %s, want %s", got, want)
	}
	if m.FlattenOnHalt || m.HasControls || m.Controls.ApprovalTimeout().Seconds() != 300 {
		t.Errorf("defaults wrong: %+v", m)
	}
	// The document round-trips through the loader.
	again, err := ParseMandate([]byte(mustString(m.Document())))
	if err != nil {
		t.Fatalf("document does not reload: %v", err)
	}
	if !again.HardCaps.MaxTotalExposureUSD.Equal(m.HardCaps.MaxTotalExposureUSD) {
		t.Error("round trip changed the exposure cap")
	}
}

// TestParseMandateRejects covers the bad inputs a user or a bug can put in mandate.json: each
// is refused with an error that names the field and, where there is one, the value.
func TestParseMandateRejects(t *testing.T) {
	cases := []struct {
		name, from, to string
		field, value   string
	}{
		{"numeric string", `"max_order_notional_usd": 750.0`, `"max_order_notional_usd": "750"`, "hard_caps.max_order_notional_usd", "'750'"},
		{"NaN string", `"max_leverage": 1.0`, `"max_leverage": "NaN"`, "hard_caps.max_leverage", "'NaN'"},
		{"NaN literal", `"max_leverage": 1.0`, `"max_leverage": NaN`, "hard_caps.max_leverage", "NaN"},
		{"Infinity literal", `"max_leverage": 1.0`, `"max_leverage": -Infinity`, "hard_caps.max_leverage", "-Inf"},
		{"boolean cap", `"max_trades_per_day": 5`, `"max_trades_per_day": true`, "hard_caps.max_trades_per_day", "true"},
		{"fractional count", `"max_trades_per_day": 5`, `"max_trades_per_day": 5.9`, "hard_caps.max_trades_per_day", "5.9"},
		{"negative cap", `"account_funding_usd": 5000.0`, `"account_funding_usd": -1`, "hard_caps.account_funding_usd", "-1"},
		{"huge number", `"max_total_exposure_usd": 5000.0`, `"max_total_exposure_usd": 1e400`, "hard_caps.max_total_exposure_usd", "1e400"},
		{"string as list", `"exclude_symbols": ["GME"]`, `"exclude_symbols": "GME"`, "universe.exclude_symbols", "'GME'"},
		{"non-string item", `"exclude_symbols": ["GME"]`, `"exclude_symbols": [123]`, "universe.exclude_symbols[0]", "123"},
		{"enum case", `["equity", "etf"]`, `["Equity"]`, "hard_caps.allowed_instruments[0]", "'Equity'"},
		{"unknown asset class", `["us_equity", "us_etf"]`, `["moon"]`, "universe.asset_classes[0]", "'moon'"},
		{"schema 2", `"schema_version": 1`, `"schema_version": 2`, "schema_version", "2"},
		{"schema string", `"schema_version": 1`, `"schema_version": "1"`, "schema_version", "'1'"},
		{"missing consent field", `"account_ref": "acct", `, ``, "consent.account_ref", ""},
		{"numeric consent", `"account_ref": "acct"`, `"account_ref": 12345`, "consent.account_ref", "12345"},
		{"flatten as string", `"schema_version": 1,`, `"schema_version": 1, "flatten_on_halt": "false",`, "flatten_on_halt", "'false'"},
		{"unknown control", `"schema_version": 1,`, `"schema_version": 1, "controls": {"max_order_qty": 5},`, "controls.max_order_qty", "5"},
		{"duplicate key", `"schema_version": 1,`, `"schema_version": 1, "schema_version": 1,`, "", ""},
		{"hard_caps not object", `"hard_caps": {`, `"hard_caps": [1], "x": {`, "hard_caps", "[1]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := strings.Replace(validMandate, c.from, c.to, 1)
			if doc == validMandate {
				t.Fatalf("mutation %q not applied", c.from)
			}
			_, err := ParseMandate([]byte(doc))
			var me *MandateError
			if !errors.As(err, &me) {
				t.Fatalf("err = %v, want a MandateError", err)
			}
			if me.Field != c.field || me.Value != c.value {
				t.Fatalf("field=%q value=%q, want field=%q value=%q (%v)", me.Field, me.Value, c.field, c.value, err)
			}
			if c.field != "" && !strings.Contains(err.Error(), c.field) {
				t.Fatalf("message %q does not name the field", err)
			}
		})
	}
}

func TestParseMandateBadDocuments(t *testing.T) {
	for name, doc := range map[string]string{
		"empty":            ``,
		"BOM":              "\ufeff" + validMandate,
		"trailing garbage": validMandate + ` x`,
		"list":             `[1, 2]`,
		"invalid UTF-8":    strings.Replace(validMandate, "GME", "G\xffE", 1),
	} {
		if _, err := ParseMandate([]byte(doc)); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
}

func TestControls(t *testing.T) {
	doc := strings.Replace(validMandate, `"schema_version": 1,`, `"schema_version": 1, "controls": {"max_order_quantity": 100,
	 "price_collar_bps": 50, "max_quote_age_ms": 2000, "duplicate_window_ms": 1000, "max_orders_per_minute": 10,
	 "approval_timeout_s": 60},`, 1)
	m, err := ParseMandate([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	c := m.Controls
	if c.MaxOrderQuantity.String() != "100" || c.PriceCollarBps.String() != "50" || *c.MaxQuoteAgeMs != 2000 ||
		*c.DuplicateWindowMs != 1000 || *c.MaxOrdersPerMinute != 10 || c.ApprovalTimeout().Seconds() != 60 {
		t.Fatalf("controls = %+v", c)
	}
	if _, err := ParseMandate([]byte(mustString(m.Document()))); err != nil {
		t.Fatalf("controls do not round-trip: %v", err)
	}
}

func mustString(v any) string {
	b, err := jsonvMarshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func jsonvMarshal(v any) (string, error) { return jsonv.MarshalString(v, jsonv.Python) }
