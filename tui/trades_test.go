package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"cockpit/live/livetest"
	"cockpit/live/lots"
	"cockpit/live/money"
	"cockpit/readmodel"
)

// dayTrades is a day's fills: 20 AAPL bought and 10 of them sold at a profit (one round trip,
// +12.50 gross, +12.00 net of the sale's 0.50 fee), and 5 TSLA sold short.
func dayTrades() readmodel.DayTrades {
	day := readmodel.UTCDay(livetest.Epoch)
	at := func(h, m int) time.Time { return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute) }
	d := money.MustParse
	trip := lots.Trip{Qty: d("10"), Long: true, OpenSeq: 101, CloseSeq: 140, OpenTime: at(10, 2), CloseTime: at(13, 41),
		OpenPrice: d("190.10"), ClosePrice: d("191.35"), Fees: d("0.50"), Gross: d("12.50"), Net: d("12.00")}
	return readmodel.DayTrades{Day: day, Broker: "paper", Trades: []readmodel.Trade{
		{Seq: 101, Time: at(10, 2), Broker: "paper", Symbol: "AAPL", Side: "buy", Qty: d("20"), Price: d("190.10"), Fee: d("0"),
			OrderID: "P000003", State: readmodel.FillApplied, Position: d("20")},
		{Seq: 122, Time: at(11, 15), Broker: "paper", Symbol: "TSLA", Side: "sell", Qty: d("5"), Price: d("245.00"), Fee: d("0"),
			OrderID: "P000007", State: readmodel.FillApplied, Position: d("-5")},
		{Seq: 140, Time: at(13, 41), Broker: "paper", Symbol: "AAPL", Side: "sell", Qty: d("10"), Price: d("191.35"), Fee: d("0.50"),
			OrderID: "P000011", State: readmodel.FillApplied, Realized: d("12.00"), Position: d("10")},
	}, Trips: []readmodel.RoundTrip{{Broker: "paper", Symbol: "AAPL", Trip: trip}}, Realized: d("12.00"), Gross: d("12.50"), Fees: d("0.50")}
}

// withTrades puts the day's trades in the screen's snapshot (and the fake backend's).
func withTrades(m *Model, be *fakeBackend) {
	be.mu.Lock()
	be.snap.Trades = dayTrades()
	s := be.snap
	be.mu.Unlock()
	m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
}

// TestTradesView (issue 29 §3): T opens the day's trades from the read model: each fill's
// time, side, symbol, quantity, price and fee, the realised P&L of the round trip it closed,
// the round trips and the day's total; at 120×40 and 80×24; privacy hides the money; esc and T
// close it; no fills says so.
func TestTradesView(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m, be, _ := newTestModel(t, size[0], size[1])
			withTrades(m, be)
			press(m, "T")
			out := screen(m)
			for _, want := range []string{"Trades — paper — 2026-", "13:41:00 sell AAPL     10        191.35     0.5     +12         10",
				"AAPL      long  10 @ 190.1 → 191.35 at 13:41:00  net +12", "3 fills, 1 round trip: realised +12 (fees 0.5)"} {
				if !strings.Contains(out, want) {
					t.Errorf("trades view lacks %q:\n%s", want, out)
				}
			}
			golden.RequireEqual(t, []byte(out))
			press(m, "esc")
			if out := screen(m); strings.Contains(out, "Round trips") {
				t.Errorf("esc left the trades view open:\n%s", out)
			}
		})
	}
	m, be, _ := newTestModel(t, 120, 40)
	withTrades(m, be)
	press(m, "P", "T")
	if out := screen(m); strings.Contains(out, "+12") || !strings.Contains(out, "realised •••") {
		t.Errorf("privacy mode shows the realised P&L:\n%s", out)
	}
	press(m, "T")
	s := be.snap
	s.Trades = readmodel.DayTrades{Day: readmodel.UTCDay(livetest.Epoch), Trades: []readmodel.Trade{}}
	m.Update(SnapshotMsg{Snapshot: s, OneOff: true})
	press(m, "T")
	if out := screen(m); !strings.Contains(out, "No fills today.") {
		t.Errorf("an empty day does not say so:\n%s", out)
	}
}

// TestTradesViewWithoutATrail: a screen whose snapshot has no day's trades read (attached to
// a Vibe-Trading root: no cockpit audit trail) says so instead of "no fills today".
func TestTradesViewWithoutATrail(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	press(m, "T")
	out := screen(m)
	if !strings.Contains(out, "This screen reads no trades") || strings.Contains(out, "No fills today") || strings.Contains(out, "0001-01-01") {
		t.Errorf("the trades view of a screen with no trail:\n%s", out)
	}
}
