package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"time"

	tea "charm.land/bubbletea/v2"

	"cockpit/live"
	"cockpit/session"
	"cockpit/tui"
)

// startupOrders is how many settled orders the large start-up root holds: two audit events
// each, so 1,000,000 events (10,000 with --quick), with their journal and paper rows.
func startupOrders(c config) int { return c.size(5_000, 500_000) }

// figStartup: `cockpit run` on a root of 0 and of 1,000,000 events, to its first frame: the
// session opened (the store's chain check, the paper account, the journal reconciled, the
// watcher proven), the screen's model built, the first snapshot read and drawn at 120×40. And
// to trading: the store's page check, which runs beside the screen, passed. The two roots take
// turns.
func figStartup(c config) ([]Figure, error) {
	sizes := []int{0, startupOrders(c)}
	roots := make([]live.Root, len(sizes))
	for k, n := range sizes {
		root, err := mcpRoot(c, fmt.Sprintf("startup-%d", n), n)
		if err != nil {
			return nil, err
		}
		roots[k] = root
	}
	frames := make([][]time.Duration, len(sizes))
	trading := make([][]time.Duration, len(sizes))
	for range c.size(3, 5) {
		for k, root := range roots {
			frame, ready, err := startOnce(root)
			if err != nil {
				return nil, fmt.Errorf("start-up on %d orders: %w", sizes[k], err)
			}
			frames[k], trading[k] = append(frames[k], frame), append(trading[k], ready)
		}
	}
	var figs []Figure
	for k, n := range sizes {
		events := 2 * n
		figs = append(figs,
			Figure{Name: fmt.Sprintf("start-up to first frame, %d events of history", events), Value: median(frames[k]), Unit: "ms",
				Note: fmt.Sprintf("median of %d, range %s; goal ≤ 500 ms", len(frames[k]), spread(frames[k]))},
			Figure{Name: fmt.Sprintf("start-up to trading, %d events of history", events), Value: median(trading[k]), Unit: "ms",
				Note: "the page check passed beside the screen: orders wait for it"})
	}
	return figs, nil
}

// startOnce opens a session on root as the screen does and returns the time to its first
// frame and to the end of the store's page check.
func startOnce(root live.Root) (frame, trading time.Duration, err error) {
	t0 := time.Now()
	s, err := session.Open(session.Options{Env: session.Env{Now: time.Now, Getenv: func(string) string { return "" }, Stderr: io.Discard},
		Root: root, Agent: "none", Approvals: "tui", Mode: "tui"})
	if err != nil {
		return 0, 0, err
	}
	defer s.Close()
	be := s.Backend()
	m, err := tui.New(tui.Options{Backend: be, Now: time.Now, Theme: "no-color", Getenv: func(string) string { return "" }})
	if err != nil {
		return 0, 0, err
	}
	for _, n := range s.Notes() {
		m.Note(n)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(tui.SnapshotMsg{Snapshot: be.Snapshot(context.Background())})
	if m.Render() == "" {
		return 0, 0, fmt.Errorf("empty first frame")
	}
	frame = time.Since(t0)
	<-s.StoreChecked()
	trading = time.Since(t0)
	if h, halted := s.Latched(); halted {
		return 0, 0, fmt.Errorf("the store failed its start-up check: %s", h.Message())
	}
	return frame, trading, nil
}

// median is the middle sample in ms.
func median(samples []time.Duration) float64 { return pct(samples, 0.5) / 1000 }

// spread is the samples' range in ms.
func spread(samples []time.Duration) string {
	s := append([]time.Duration(nil), samples...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return fmt.Sprintf("%.0f–%.0f ms", float64(s[0].Microseconds())/1000, float64(s[len(s)-1].Microseconds())/1000)
}
