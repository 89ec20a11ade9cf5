package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"cockpit/internal/enginetest"
	"cockpit/live"
	"cockpit/live/jsonv"
)

// FuzzPlaceOrderArgs: a model's raw place_order arguments go through the chokepoint without
// panicking; arguments that are not one JSON object without repeated keys, or that leave the
// intent unusable, never place an order.
func FuzzPlaceOrderArgs(f *testing.F) {
	for _, s := range []string{
		`{"symbol": "AAPL", "side": "buy", "quantity": 1, "reason": "r"}`,
		`{"symbol": "AAPL", "side": "buy", "notional": "100", "type": "limit", "limit_price": 10}`,
		`{"symbol": "AAPL", "side": "buy", "notional": 1e400}`, `{"symbol": "AAPL", "symbol": "MSFT", "side": "buy", "quantity": 1}`,
		`{"symbol": "AAPL", "side": "buy", "quantity": NaN}`, `[1]`, ``, `{"side": "hold"}`, `{"symbol": "AAPL", "side": "sell", "quantity": "1_0"}`,
	} {
		f.Add([]byte(s))
	}
	fx := enginetest.New(f)
	fx.CheckTerminal = false
	fx.Engine.Approver = false // a breach is denied, never waits for a human
	f.Fuzz(func(t *testing.T, raw []byte) {
		fx.Clock.Advance(time.Minute)
		r := fx.Turn().CallRaw(context.Background(), "place_order", raw)
		if !r.OK() {
			return
		}
		if len(strings.TrimSpace(string(raw))) == 0 {
			raw = []byte("{}")
		}
		v, err := jsonv.Parse(raw, jsonv.Options{RejectDuplicates: true, MaxDepth: 32})
		if err != nil {
			t.Fatalf("an order was placed from arguments that do not parse: %v", err)
		}
		o, ok := v.(*jsonv.Object)
		if !ok {
			t.Fatalf("an order was placed from %s", jsonv.TypeName(v))
		}
		if in, _ := live.ExtractGeneric(o); in.Invalid != nil {
			t.Fatalf("an order was placed from an unusable intent: %v", in.Invalid)
		}
	})
}
