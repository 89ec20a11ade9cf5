package gate_test

import (
	"context"
	"strings"
	"testing"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

func TestAlpacaOrderShapesThroughGate(t *testing.T) {
	const all = `"equity", "etf", "option", "crypto"`
	profile := &live.Profile{Name: "alpaca", Extract: live.ExtractAlpaca}
	tests := []struct {
		name, instruments, tool, args string
		verdict                       live.Verdict
		reason, notional, detail      string
	}{
		{"crypto fraction", all, "place_crypto_order", `{"symbol":"BTC/USD","side":"buy","qty":"0.0015","type":"market","time_in_force":"gtc"}`, live.Allow, "", "96.00075", ""},
		{"crypto not allowed", `"equity"`, "place_crypto_order", `{"symbol":"BTC/USD","side":"buy","qty":"0.0015"}`, live.Deny, live.LimitAllowedInstruments, "", "crypto not in allowed_instruments"},
		{"option at its limit premium", all, "place_option_order", `{"symbol":"AAPL250117C00150000","side":"buy","qty":"3","type":"limit","limit_price":"1.30"}`, live.Allow, "", "390", ""},
		{"option not allowed", `"equity", "etf"`, "place_option_order", `{"symbol":"AAPL250117C00150000","side":"buy","qty":"3"}`, live.Deny, live.LimitAllowedInstruments, "", ""},
		{"option spread", all, "place_option_order", `{"qty":"3","type":"limit","limit_price":"0.80","order_class":"mleg","legs":[{"symbol":"AAPL250117C00150000","side":"buy","ratio_qty":"1","position_intent":"buy_to_open"},{"symbol":"AAPL250117C00160000","side":"sell","ratio_qty":"1","position_intent":"sell_to_open"}]}`, live.Allow, "", "501", ""},
		{"spread one leg short of a spread", all, "place_option_order", `{"qty":"1","order_class":"mleg","legs":[{"symbol":"AAPL250117C00150000","side":"buy","ratio_qty":"1"}]}`, live.Deny, live.LimitOrderIntent, "", "legs: 1 legs, want 2 to 4"},
		{"stock bracket: the parent is the order", all, "place_stock_order", `{"symbol":"AAPL","side":"buy","qty":"2","order_class":"bracket","take_profit_limit_price":"200","stop_loss_stop_price":"180"}`, live.Allow, "", "374.42", ""},
		{"stock stop valued at its stop", all, "place_stock_order", `{"symbol":"AAPL","side":"buy","qty":"2","type":"stop","stop_price":"190"}`, live.Allow, "", "380", ""},
		{"stock stop-limit valued at the larger of its stop and limit", all, "place_stock_order", `{"symbol":"AAPL","side":"buy","qty":"2","type":"stop_limit","stop_price":"190","limit_price":"191"}`, live.Allow, "", "382", ""},
		{"buy trailing stop valued at the price plus its trail", all, "place_stock_order", `{"symbol":"AAPL","side":"buy","qty":"2","type":"trailing_stop","trail_percent":"1"}`, live.Allow, "", "378.1642", ""},
		{"trailing stop with two trails", all, "place_stock_order", `{"symbol":"AAPL","side":"buy","qty":"2","type":"trailing_stop","trail_percent":"1","trail_price":"2"}`, live.Deny, live.LimitOrderIntent, "", "exactly one of trail_amount and trail_percent"},
		{"stop without its stop price", all, "place_stock_order", `{"symbol":"AAPL","side":"buy","qty":"2","type":"stop"}`, live.Deny, live.LimitOrderIntent, "", "needs stop_price"},
		{"buy OCO: its stop-loss leg valued at its stop", all, "place_stock_order", `{"symbol":"AAPL","side":"buy","qty":"2","type":"limit","limit_price":"180","order_class":"oco","stop_loss_stop_price":"195"}`, live.Allow, "", "390", ""},
		{"qty and notional", all, "place_stock_order", `{"symbol":"AAPL","side":"buy","qty":"2","notional":"100"}`, live.Deny, live.LimitOrderIntent, "", "mutually exclusive"},
		{"unknown order class", all, "place_stock_order", `{"symbol":"AAPL","side":"buy","qty":"2","order_class":"iceberg"}`, live.Deny, live.LimitOrderIntent, "", "order_class 'iceberg'"},
		{"OCC symbol sent as a stock", all, "place_stock_order", `{"symbol":"AAPL250117C00150000","side":"buy","qty":"1"}`, live.Deny, live.LimitOrderIntent, "", "is an OCC option symbol"},
		{"option lifecycle tool carries no intent", all, "exercise_options_position", `{"symbol_or_contract_id":"AAPL250117C00150000"}`, live.Deny, string(live.ReasonNoIntent), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newQuoteBroker()
			g := instrumentGate(t, b, tt.instruments, `"us_equity", "us_etf", "crypto"`)
			v, err := jsonv.Parse([]byte(tt.args), jsonv.Options{})
			if err != nil {
				t.Fatal(err)
			}
			d := g.Submit(context.Background(), gate.Submission{Broker: b, Profile: profile, Tool: tt.tool, Args: v.(*jsonv.Object), Actor: live.Agent("test", "s1")})
			if d.Verdict != tt.verdict || (tt.reason != "" && string(d.Reason) != tt.reason) {
				t.Fatalf("got %s %s (%s), want %s %s", d.Verdict, d.Reason, d.Message(), tt.verdict, tt.reason)
			}
			if tt.notional != "" && (d.Intent == nil || d.Intent.NotionalUSD == nil || !d.Intent.NotionalUSD.Equal(money.MustParse(tt.notional))) {
				t.Errorf("notional = %v, want %s", d.Intent, tt.notional)
			}
			if !strings.Contains(d.Message(), tt.detail) {
				t.Errorf("message %q, want it to contain %q", d.Message(), tt.detail)
			}
		})
	}
}

// TestAlpacaMCPProfileTakesStops is issue 29 item 2's MCP repro: through the Alpaca MCP
// profile a protective stop was INTENT_UNPARSED (the extractor refused stop_price and
// trail_percent). It is now an intent the gate values: a sell stop at the market, a buy
// trailing stop at the price plus its trail.
func TestAlpacaMCPProfileTakesStops(t *testing.T) {
	for _, tc := range []struct{ args, notional string }{
		{`{"symbol":"AAPL","side":"sell","qty":"2","type":"stop","stop_price":"170"}`, "374.4"},
		{`{"symbol":"AAPL","side":"buy","qty":"2","type":"trailing_stop","trail_percent":"1"}`, "378.1642"},
	} {
		b := newQuoteBroker()
		g := instrumentGate(t, b, `"equity"`, `"us_equity"`)
		v, _ := jsonv.Parse([]byte(tc.args), jsonv.Options{})
		d := g.Submit(context.Background(), gate.Submission{Broker: b, Profile: live.AlpacaMCP(), Tool: "place_stock_order", Args: v.(*jsonv.Object),
			Actor: live.Agent("test", "s1"), DryRun: true})
		if d.Verdict != live.Allow || d.Intent == nil || d.Intent.NotionalUSD == nil || d.Intent.NotionalUSD.String() != tc.notional {
			t.Fatalf("%s: %s %s (%s), want ALLOW valued at %s", tc.args, d.Verdict, d.Reason, d.Message(), tc.notional)
		}
	}
}
