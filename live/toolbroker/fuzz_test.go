package toolbroker

import (
	"context"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/jsonv"
)

// replyCaller answers every tool with the same decoded reply.
type replyCaller struct{ reply any }

func (c replyCaller) CallTool(context.Context, string, *jsonv.Object) (any, error) {
	return c.reply, nil
}

// FuzzReplies: whatever a tool-shaped broker answers, the reads (quote, positions, account,
// open orders) never panic; a quote is positive, positions are one row per symbol, an error
// envelope is a rejection, and open orders all carry an id.
func FuzzReplies(f *testing.F) {
	for _, s := range []string{
		`{"price": 189.5}`, `{"status": "error", "error": "rate limited"}`,
		`{"results": [{"symbol": "AAPL", "last_price": "1.5"}], "positions": [{"symbol": "A", "market_value": 5}]}`,
		`[{"symbol": "AAPL", "quantity": -2, "price": 10}, {"ticker": "aapl", "value": 3}]`,
		`{"cash": "100.5", "equity": NaN, "buying_power": true}`,
		`[{"order_id": "1", "status": "new", "symbol": "X"}, {"id": "", "status": "filled"}]`,
		`"not json"`, `null`, `{"data": "junk"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		reply, err := jsonv.Parse(data, jsonv.Options{NonFinite: true, MaxDepth: 64})
		if err != nil {
			reply = string(data) // a text reply that is not JSON comes back as the string
		}
		for _, p := range []*live.Profile{live.Robinhood(), live.GenericMCP} {
			b := &Broker{Key: "fuzz", Profile: p, Caller: replyCaller{reply}, Now: func() time.Time { return time.Unix(0, 0) }}
			ctx := context.Background()
			envelope := false
			if o, ok := reply.(*jsonv.Object); ok {
				envelope = live.IsErrorEnvelope(o)
			}
			q, err := b.Quote(ctx, "AAPL")
			if err == nil && (q.Last.Sign() <= 0 || q.Last.IsInf()) {
				t.Fatalf("quote %s accepted", q.Last)
			}
			if envelope && err == nil {
				t.Fatal("an error envelope gave a quote")
			}
			pos, err := b.Positions(ctx)
			seen := map[string]bool{}
			for _, r := range pos {
				if seen[r.Symbol] || r.Symbol == "" {
					t.Fatalf("positions %+v: a symbol repeats or is empty", pos)
				}
				seen[r.Symbol] = true
			}
			if envelope && err == nil {
				t.Fatal("an error envelope gave positions")
			}
			if _, err := b.Account(ctx); envelope && err == nil {
				t.Fatal("an error envelope gave an account")
			}
			orders, _ := b.OpenOrders(ctx)
			for _, o := range orders {
				if o.ID == "" {
					t.Fatal("an open order without an id")
				}
			}
		}
	})
}
