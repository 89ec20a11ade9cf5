package main

import (
	"cockpit/readmodel"
	"context"
	"fmt"
	"path/filepath"
	"time"

	tea "charm.land/bubbletea/v2"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/mandatefile"
	"cockpit/live/money"
	"cockpit/tui"
)

// snapshotBackend is a screen backend that only answers Snapshot (View never calls the rest).
type snapshotBackend struct {
	tui.Backend
	snap readmodel.Snapshot
}

func (b snapshotBackend) Snapshot(context.Context) readmodel.Snapshot { return b.snap }

// figView: one frame of the screen at 120×40 with 500 resting orders, 200 positions and 50
// review items: what View() shows each render tick (Render draws it).
func figView(c config) ([]Figure, error) {
	snap, err := bigSnapshot(c)
	if err != nil {
		return nil, err
	}
	m, err := tui.New(tui.Options{Backend: snapshotBackend{snap: snap}, Now: func() time.Time { return snap.Taken }, Theme: "no-color",
		Getenv: func(string) string { return "" }})
	if err != nil {
		return nil, err
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(tui.SnapshotMsg{Snapshot: snap, OneOff: true})
	var bad error
	us := perCall(c.size(50, 500), func(int) {
		if m.Render() == "" && bad == nil {
			bad = fmt.Errorf("empty frame")
		}
	})
	return []Figure{{Name: "View(), 120×40, 500 orders, 200 positions, 50 reviews", Value: us / 1000, Unit: "ms"}}, bad
}

func bigSnapshot(c config) (readmodel.Snapshot, error) {
	root, err := live.NewRoot(filepath.Join(c.tmp, "view"))
	if err != nil {
		return readmodel.Snapshot{}, err
	}
	now := time.Now().UTC()
	res, err := mandatefile.CommitFile(mandatefile.FileCommit{Root: root, Broker: live.PaperBroker, Document: []byte(benchMandate),
		Source: "cockpit-bench", ConsentAck: true, Now: now, SessionID: "bench"})
	if err != nil {
		return readmodel.Snapshot{}, err
	}
	s := readmodel.Snapshot{Taken: now, Broker: "paper", State: live.Active, HaltFile: root.SentinelPath(live.HaltSentinel, "paper"), HaltFileOK: true, Mandate: res.Mandate, Committed: now, Expires: now.Add(29 * 24 * time.Hour), OrdersToday: 14, Owned: readmodel.Owned{Agent: "strategy", Quotes: map[string]live.Quote{}, Origins: map[string]string{}, Account: live.Account{Cash: money.MustParse("95000"), Equity: money.MustParse("100029.75"), BuyingPower: money.MustParse("95000")}}}
	qty, px := money.MustParse("10"), money.MustParse("101.25")
	for i := range 500 {
		id := fmt.Sprintf("P%06d", i)
		s.Orders = append(s.Orders, live.Order{ID: id, ClientOrderID: "ck" + id, Symbol: fmt.Sprintf("S%03d", i%200), Side: "buy",
			Type: live.Limit, Quantity: &qty, LimitPrice: &px, Status: live.StatusAccepted, CreatedAt: now.Add(-time.Minute)})
		s.Origins["ck"+id] = "agent:strategy"
	}
	for i := range 200 {
		sym := fmt.Sprintf("S%03d", i)
		s.Positions = append(s.Positions, live.Position{Symbol: sym, Qty: money.FromInt(int64(i + 1)), AvgPrice: money.MustParse("100"),
			MarketValue: money.FromInt(int64(100 * (i + 1))), UnrealizedPnL: money.FromInt(int64(i - 100))})
		s.Quotes[sym] = live.Quote{Symbol: sym, Bid: money.MustParse("100.9"), Ask: money.MustParse("101.1"), Last: money.MustParse("101"), Time: now}
	}
	order := jsonv.ObjectOf("side", "buy", "notional", "6000", "symbol", "S001")
	for i := range 50 {
		s.Reviews = append(s.Reviews, live.ReviewItem{ID: fmt.Sprintf("ap_%04d", i), Broker: "paper", Order: order, Limit: "max_order_notional_usd",
			LimitValue: "5000", Attempted: "6000", Created: now.Add(time.Duration(i) * time.Second), Deadline: now.Add(5 * time.Minute), State: live.ReviewPending})
	}
	return s, nil
}
