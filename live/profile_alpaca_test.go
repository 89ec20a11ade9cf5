package live

import (
	"testing"

	"cockpit/live/jsonv"
)

func TestExtractAlpaca(t *testing.T) {
	o := jsonv.ObjectOf
	tests := []struct {
		name, tool string
		args       *jsonv.Object
		want       string // Describe(), "" = no intent (deny)
		notional   string
	}{
		{"stock qty", "place_stock_order", o("symbol", " aapl ", "side", "buy", "qty", "2"), "buy 2 units AAPL (equity)", ""},
		{"stock notional", "place_stock_order", o("symbol", "AAPL", "side", "sell", "notional", "150.5", "type", "market"), "sell $150.5 AAPL (equity)", "150.5"},
		{"stock limit values at qty × limit", "place_stock_order", o("symbol", "AAPL", "side", "buy", "qty", "3", "type", "limit", "limit_price", "200"), "buy $600 AAPL (equity)", "600"},
		{"crypto pair", "place_crypto_order", o("symbol", "btc/usd", "side", "buy", "notional", "50"), "buy $50 BTC/USD (crypto)", "50"},
		{"option contracts count 100 shares", "place_option_order", o("symbol", "AAPL250620C00200000", "side", "buy", "qty", "2"), "buy 200 units AAPL250620C00200000 (option)", ""},
		{"option limit", "place_option_order", o("symbol", "AAPL250620C00200000", "side", "buy", "qty", "2", "type", "limit", "limit_price", "1.5"), "buy $300 AAPL250620C00200000 (option)", "300"},
		{"multi-leg denied", "place_option_order", o("qty", "1", "order_class", "mleg", "legs", []any{}), "", ""},
		{"qty and notional both", "place_stock_order", o("symbol", "AAPL", "side", "buy", "qty", "1", "notional", "10"), "", ""},
		{"neither size", "place_stock_order", o("symbol", "AAPL", "side", "buy"), "", ""},
		{"zero qty", "place_stock_order", o("symbol", "AAPL", "side", "buy", "qty", "0"), "", ""},
		{"side long is not a side", "place_stock_order", o("symbol", "AAPL", "side", "long", "qty", "1"), "", ""},
		{"bracket denied", "place_stock_order", o("symbol", "AAPL", "side", "buy", "qty", "1", "order_class", "bracket"), "", ""},
		{"inferred bracket denied", "place_stock_order", o("symbol", "AAPL", "side", "buy", "qty", "1", "take_profit_limit_price", "300"), "", ""},
		{"stop", "place_stock_order", o("symbol", "AAPL", "side", "buy", "qty", "1", "type", "stop", "stop_price", "1"), "buy 1 units AAPL (equity)", ""},
		{"stop-limit", "place_stock_order", o("symbol", "AAPL", "side", "sell", "qty", "1", "type", "stop_limit", "stop_price", "90", "limit_price", "89"), "sell $89 AAPL (equity)", "89"},
		{"trailing stop", "place_stock_order", o("symbol", "AAPL", "side", "sell", "qty", "1", "type", "trailing_stop", "trail_percent", "2"), "sell 1 units AAPL (equity)", ""},
		{"stop without its price denied", "place_stock_order", o("symbol", "AAPL", "side", "buy", "qty", "1", "type", "stop"), "", ""},
		{"trailing stop with two trails denied", "place_stock_order", o("symbol", "AAPL", "side", "sell", "qty", "1", "type", "trailing_stop", "trail_price", "1", "trail_percent", "2"), "", ""},
		{"stop with a bad price denied", "place_stock_order", o("symbol", "AAPL", "side", "buy", "qty", "1", "type", "stop", "stop_price", "-1"), "", ""},
		{"limit without price", "place_stock_order", o("symbol", "AAPL", "side", "buy", "qty", "1", "type", "limit"), "", ""},
		{"market with a limit price", "place_stock_order", o("symbol", "AAPL", "side", "buy", "qty", "1", "limit_price", "1"), "", ""},
		{"replace is not an intent", "replace_order_by_id", o("order_id", "x", "qty", "100"), "", ""},
		{"cancel is not an intent", "cancel_order_by_id", o("order_id", "x"), "", ""},
		{"nan notional", "place_stock_order", o("symbol", "AAPL", "side", "buy", "notional", "nan"), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, ok := AlpacaMCP().Extract(tt.tool, tt.args)
			got := ""
			if ok {
				got = in.Describe()
			}
			if got != tt.want {
				t.Fatalf("intent: got %q, want %q", got, tt.want)
			}
			if ok && tt.notional != "" && (in.NotionalUSD == nil || in.NotionalUSD.String() != tt.notional) {
				t.Fatalf("notional: got %v, want %s", in.NotionalUSD, tt.notional)
			}
		})
	}
}

func TestAlpacaQuoteTools(t *testing.T) {
	for sym, want := range map[string]string{"AAPL": "get_stock_latest_quote", "BTC/USD": "get_crypto_latest_quote",
		"AAPL250620C00200000": "get_option_latest_quote", "aapl250620p00200000": "get_option_latest_quote"} {
		if got := AlpacaMCP().QuoteToolOf(sym); got != want {
			t.Errorf("%s: got %s, want %s", sym, got, want)
		}
	}
	if p, ok := AlpacaMCP().ParseQuote(jsonv.ObjectOf("symbol", "AAPL", "quote", jsonv.ObjectOf("ask_price", "191.5", "bid_price", "191.4")), "AAPL"); !ok || p.String() != "191.5" {
		t.Fatalf("ParseQuote: got %s %v, want the ask 191.5", p, ok)
	}
}

// TestBuildOrderCarriesTheTrigger: a typed stop sent through an MCP profile carries its stop
// and trail (Alpaca), or is refused where the profile does not map stops (Robinhood): it is
// never sent as a plain order.
func TestBuildOrderCarriesTheTrigger(t *testing.T) {
	stop, trail, one := amt("95"), amt("2"), amt("1")
	_, args, err := AlpacaMCP().BuildOrder(OrderRequest{Symbol: "AAPL", Side: Sell, Type: StopLimit, Quantity: &one, StopPrice: &stop, LimitPrice: &trail})
	if err != nil || args.Value("stop_price") != "95" || args.Value("limit_price") != "2" || args.Value("type") != "stop_limit" {
		t.Fatalf("alpaca stop-limit args = %v %v", args, err)
	}
	_, args, _ = AlpacaMCP().BuildOrder(OrderRequest{Symbol: "AAPL", Side: Sell, Type: TrailingStop, Quantity: &one, TrailPercent: &trail})
	if args.Value("trail_percent") != "2" || args.Value("type") != "trailing_stop" {
		t.Fatalf("alpaca trailing args = %v", args)
	}
	if _, _, err := Robinhood().BuildOrder(OrderRequest{Symbol: "AAPL", Side: Sell, Type: Stop, Quantity: &one, StopPrice: &stop}); err == nil {
		t.Fatal("robinhood built a stop order it cannot express")
	}
}
