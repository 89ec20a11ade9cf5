package alpaca

import (
	"testing"
	"time"

	sdk "github.com/alpacahq/alpaca-trade-api-go/v3/alpaca"
	"github.com/shopspring/decimal"

	"cockpit/live"
	"cockpit/live/money"
)

// TestFillReportedOnceWhicheverComesFirst: a market order's POST reply can already say
// filled before its stream event arrives. The fill is published once either way; it was never
// published when the reply came first (the stream event then looked like a replay), which made
// TestStreamDropReconnectReconcile flaky under load.
func TestFillReportedOnceWhicheverComesFirst(t *testing.T) {
	px := decimal.RequireFromString("190.00")
	qty := decimal.RequireFromString("1")
	filled := sdk.Order{ID: "o1", ClientOrderID: "c1", Symbol: "AAPL", Side: "buy", Type: "market", Status: "filled",
		Qty: &qty, FilledQty: qty, FilledAvgPrice: &px, UpdatedAt: time.Now()}
	event := sdk.TradeUpdate{At: time.Now(), Event: "fill", Order: filled, Qty: &qty, Price: &px}
	for _, replyFirst := range []bool{true, false} {
		_, b := pair(t, 5*time.Second)
		ch := make(chan live.OrderUpdate, 8)
		b.mu.Lock()
		b.subs = append(b.subs, ch) // a subscriber without the live stream
		b.mu.Unlock()
		lo, err := order(&filled)
		if err != nil {
			t.Fatal(err)
		}
		if replyFirst {
			b.placed(lo)
			b.onTradeUpdate(event)
		} else {
			b.onTradeUpdate(event)
			b.placed(lo)
		}
		fills := money.Zero
		for len(ch) > 0 {
			if u := <-ch; u.FillQty.Sign() > 0 {
				fills = fills.Add(u.FillQty)
			}
		}
		if !fills.Equal(money.MustParse("1")) {
			t.Errorf("reply first %v: fills published = %s, want 1 (exactly once)", replyFirst, fills)
		}
	}
}
