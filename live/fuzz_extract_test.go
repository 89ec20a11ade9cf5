package live

import (
	"context"
	"testing"

	"cockpit/live/jsonv"
)

// FuzzExtractors: the order extractors (Robinhood's place_equity_order, cockpit's own
// place_order) and the quote parsers read any JSON without panicking; a quote they accept is
// positive; an intent they leave unusable is never allowed by CheckMandate.
func FuzzExtractors(f *testing.F) {
	for _, s := range []string{
		`{"symbol": "AAPL", "side": "buy", "quantity": 1}`,
		`{"symbol": " msft ", "side": "SELL", "notional": "250.5", "type": "limit", "limit_price": 10}`,
		`{"symbol": "X", "side": "buy", "notional_usd": NaN, "instrument_type": "crypto"}`,
		`{"symbol": "AAPL", "side": "buy", "quantity": "1_000", "type": "stop"}`,
		`{"symbol": "AAPL", "side": "buy", "dollar_amount": 100, "instrument": "stock", "order_type": "market"}`,
		`{"price": "189.5"}`, `{"AAPL": {"last_price": 1e-9}}`, `{"quotes": [{"symbol": "aapl", "ask": 3}, {"bid": 1}]}`,
		`{"status": "ok", "quote": {"last": -1, "ask": "2.5"}}`, `{"status": "error", "error": "boom"}`,
		`[]`, `"text"`, `{"data": [{"close": Infinity}]}`,
	} {
		f.Add([]byte(s))
	}
	m := testMandate()
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := jsonv.Parse(data, jsonv.Options{NonFinite: true, MaxDepth: 64})
		if err != nil {
			return
		}
		if px, ok := ParseMCPQuote(doc, "AAPL"); ok && (px.Sign() <= 0 || px.IsInf()) {
			t.Fatalf("ParseMCPQuote accepted %s", px)
		}
		if px, ok := ParseConnectorQuote(doc); ok && (px.Sign() <= 0 || px.IsInf()) {
			t.Fatalf("ParseConnectorQuote accepted %s", px)
		}
		o, ok := doc.(*jsonv.Object)
		if !ok {
			return
		}
		before := string(jsonv.MustMarshal(o, jsonv.Python))
		in, req := ExtractGeneric(o)
		if req.Symbol != in.NormalizedSymbol() {
			t.Fatalf("request symbol %q, intent %q", req.Symbol, in.NormalizedSymbol())
		}
		if in.Invalid != nil {
			if b := CheckMandate(context.Background(), CheckRequest{Mandate: m, Intent: in}); b == nil {
				t.Fatalf("an unusable intent (%v) was allowed", in.Invalid)
			}
		}
		if rin, ok := Robinhood().Extract(Robinhood().PlaceTool, o); ok && rin.NormalizedSymbol() == "" {
			t.Fatal("the Robinhood extractor accepted an order without a symbol")
		}
		if _, ok := Robinhood().Extract("get_equity_quotes", o); ok {
			t.Fatal("a read tool yielded an intent")
		}
		if after := string(jsonv.MustMarshal(o, jsonv.Python)); after != before {
			t.Fatalf("extraction changed the arguments: %s → %s", before, after)
		}
	})
}
