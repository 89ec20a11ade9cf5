package tui

import (
	"cockpit/readmodel"

	"fmt"
	"testing"
	"time"

	"cockpit/engine"
	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// bigSnapshot has 500 resting orders, 200 positions, 50 review items and 60 audit rows.
func bigSnapshot(t testing.TB) readmodel.Snapshot {
	s := sampleSnapshot(t)
	s.Orders, s.Positions, s.Reviews = nil, nil, nil
	s.Origins = map[string]string{}
	for i := 0; i < 500; i++ {
		id := fmt.Sprintf("P%06d", i)
		s.Orders = append(s.Orders, live.Order{ID: id, ClientOrderID: "ck" + id, Symbol: fmt.Sprintf("S%03d", i%200), Side: "buy",
			Type: live.Limit, Quantity: amtp("10"), LimitPrice: amtp("101.25"), Status: live.StatusAccepted, CreatedAt: s.Taken.Add(-time.Minute)})
		s.Origins["ck"+id] = "agent:strategy"
	}
	for i := 0; i < 200; i++ {
		sym := fmt.Sprintf("S%03d", i)
		s.Positions = append(s.Positions, live.Position{Symbol: sym, Qty: money.FromInt(int64(i + 1)), AvgPrice: money.MustParse("100"),
			MarketValue: money.FromInt(int64(100 * (i + 1))), UnrealizedPnL: money.FromInt(int64(i - 100))})
		s.Quotes[sym] = live.Quote{Symbol: sym, Bid: money.MustParse("100.9"), Ask: money.MustParse("101.1"), Last: money.MustParse("101"), Time: s.Taken}
	}
	order, _ := jsonv.Parse([]byte(`{"side":"buy","notional":"6000","symbol":"S001"}`), jsonv.Options{})
	for i := 0; i < 50; i++ {
		s.Reviews = append(s.Reviews, live.ReviewItem{ID: fmt.Sprintf("ap_%04d", i), Order: order.(*jsonv.Object), Limit: "max_order_notional_usd",
			LimitValue: "5000", Attempted: "6000", Created: s.Taken.Add(time.Duration(i) * time.Second), Deadline: s.Taken.Add(5 * time.Minute)})
	}
	for i := 0; i < 60; i++ {
		s.Audit = append(s.Audit, readmodel.AuditRow{Seq: int64(1_000_000 - i), Time: s.Taken, Actor: "agent:strategy", Type: "order_placed", Outcome: "accepted", Summary: "buy $1000 S001 (equity)"})
	}
	return s
}

// BenchmarkRender measures drawing one frame at 120×40 with 500 orders, 200 positions, 50
// review items, 500 alerts and 300 chart samples: what View shows each render tick.
func BenchmarkRender(b *testing.B) {
	for _, sz := range [][2]int{{120, 40}, {80, 24}} {
		b.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(b *testing.B) {
			m, _, clock := newTestModel(b, sz[0], sz[1])
			big := bigSnapshot(b)
			for i := 0; i < 300; i++ {
				big.Taken = big.Taken.Add(time.Second)
				clock.Advance(time.Second)
				m.data.onSnapshot(big)
			}
			for i := 0; i < maxAlerts; i++ {
				m.data.alert(Alert{Level: levelWarn, Kind: "DENIED", Source: "strategy place_order", Text: "mandate:max_trades_per_day: 41 > 40"})
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if m.Render() == "" {
					b.Fatal("empty frame")
				}
			}
		})
	}
}

// BenchmarkEvent measures folding one engine event into the model (no drawing: frames are
// drawn on the tick).
func BenchmarkEvent(b *testing.B) {
	m, _, _ := newTestModel(b, 120, 40)
	ev := engine.Event{Gen: 1, Kind: engine.EvToolCall, Tool: "place_order",
		Result: &engine.Result{Status: engine.StatusDenied, Decision: "deny", Code: "mandate:exclude_symbols", Detail: "GME is excluded"}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Update(EngineMsg(ev))
	}
}
