package tui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"cockpit/live"
)

// flattenRun is a flatten the operator started: its steps as they happen and, at the end,
// the broker's verified answer. Until the report arrives the result reads "—".
type flattenRun struct {
	ch      chan tea.Msg
	steps   []live.FlattenProgress
	report  *live.FlattenReport
	started time.Time
}

// openFlatten shows the preview, or the running flatten's progress.
func (m *Model) openFlatten() tea.Cmd {
	if m.flat != nil && m.flat.report == nil {
		m.modal = &flattenModal{}
		return nil
	}
	m.modal = &flattenModal{preview: true, orders: len(m.data.Snap.Orders), positions: append([]live.Position(nil), m.data.Snap.Positions...)}
	return nil
}

// startFlatten runs the backend's flatten off the UI goroutine, feeding progress back.
func (m *Model) startFlatten() tea.Cmd {
	run := &flattenRun{ch: make(chan tea.Msg, 256), started: m.now()}
	m.flat = run
	be := m.be
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		rep := be.Flatten(ctx, func(p live.FlattenProgress) {
			select {
			case run.ch <- FlattenProgressMsg{Progress: p}:
			default: // the screen is behind: the report still carries everything
			}
		})
		run.ch <- FlattenDoneMsg{Report: rep}
		close(run.ch)
	}()
	return waitFlatten(run.ch)
}

func waitFlatten(ch chan tea.Msg) tea.Cmd {
	return func() tea.Msg {
		msg, ok := <-ch
		if !ok {
			return nil
		}
		return msg
	}
}

func (m *Model) onFlattenProgress(p live.FlattenProgress) tea.Cmd {
	if m.flat == nil {
		return nil
	}
	m.flat.steps = append(m.flat.steps, p)
	return waitFlatten(m.flat.ch)
}

func (m *Model) onFlattenDone(rep live.FlattenReport) tea.Cmd {
	if m.flat == nil {
		return nil
	}
	m.flat.report = &rep
	m.data.alert(Alert{Level: flattenLevel(rep), Kind: "FLATTEN", Source: "operator", Text: rep.Summary()})
	m.data.say("flatten: " + rep.Summary())
	return m.refresh()
}

// flattenLevel grades a flatten report: flat is good news, a cancel-only halt that kept
// positions as asked is a warning, anything else is critical.
func flattenLevel(rep live.FlattenReport) int {
	switch {
	case rep.Flat():
		return levelInfo
	case rep.Complete():
		return levelWarn
	}
	return levelCrit
}

// flattenModal is the preview (y/N) and then the live progress of a flatten.
type flattenModal struct {
	preview   bool
	orders    int
	positions []live.Position
}

func (f *flattenModal) typing() bool { return false }

func (f *flattenModal) view(m *Model, w, h int) string {
	mode := "PAPER"
	if m.data.Snap.Live {
		mode = "LIVE"
	}
	if f.preview {
		return frame(m, "FLATTEN — "+mode, f.previewLines(m), 80, w, h)
	}
	return frame(m, "FLATTEN — "+mode, m.flattenProgressLines(), 80, w, h)
}

func (f *flattenModal) previewLines(m *Model) []string {
	k := m.c.Styles.Key.Render
	lines := []string{
		"1. HALT: write the HALT file, pause the agent, close the gate",
		fmt.Sprintf("2. Cancel %d resting order%s", f.orders, plural(f.orders)),
		fmt.Sprintf("3. Close %d position%s (reduce-only, market, through the gate):", len(f.positions), plural(len(f.positions))),
	}
	for i, p := range f.positions {
		if i == 8 {
			lines = append(lines, fmt.Sprintf("     … and %d more", len(f.positions)-8))
			break
		}
		side := "SELL"
		if p.Qty.Sign() < 0 {
			side = "BUY"
		}
		lines = append(lines, fmt.Sprintf("     %-6s %12s → %s %s", p.Symbol, qty(p.Qty), side, qty(p.Qty.Abs())))
	}
	lines = append(lines, "4. Verify with the broker: open orders = 0, positions = 0", "",
		k("y")+" flatten now    "+k("n")+"/esc back (default)")
	return lines
}

// flattenProgressLines shows each phase's progress and, only after the broker was re-read,
// the result.
func (m *Model) flattenProgressLines() []string {
	run := m.flat
	if run == nil {
		return []string{"no flatten running"}
	}
	type phase struct {
		name  string
		ph    live.FlattenPhase
		done  int
		total int
		fails int
		seen  bool
	}
	phases := []*phase{{name: "Cancel resting orders", ph: live.PhaseCancel}, {name: "Close positions", ph: live.PhaseClose},
		{name: "Verify with the broker", ph: live.PhaseVerify}}
	var failures []string
	for _, s := range run.steps {
		for _, p := range phases {
			if s.Phase == p.ph {
				p.seen, p.done, p.total = true, max(p.done, s.Done), max(p.total, s.Total)
				if !s.OK && s.Err != "" {
					p.fails++
					failures = append(failures, fmt.Sprintf("%s %s: %s", s.Phase, s.Item, untrusted(s.Err, 60)))
				}
			}
		}
	}
	lines := []string{"1. HALT                                          ✓"}
	for i, p := range phases {
		status := "…"
		switch {
		case p.ph == live.PhaseVerify && run.report != nil:
			status = "✓ re-read"
			if !run.report.Verified {
				status = "✖ " + untrusted(run.report.VerifyErr, 40)
			}
		case p.seen && p.total > 0:
			status = fmt.Sprintf("%d/%d", p.done, p.total)
			if p.fails > 0 {
				status += fmt.Sprintf(" (%d failed)", p.fails)
			}
		case p.seen || run.report != nil:
			status = "✓ none"
		}
		lines = append(lines, fmt.Sprintf("%d. %-44s %s", i+2, p.name, status))
	}
	for i, f := range failures {
		if i == 4 {
			lines = append(lines, fmt.Sprintf("   … %d more failures", len(failures)-4))
			break
		}
		lines = append(lines, "   ✖ "+f)
	}
	result := "Result: — (waiting for the broker)"
	if run.report != nil {
		result = "Result: " + run.report.Summary()
		switch flattenLevel(*run.report) {
		case levelInfo:
			result = m.c.Styles.Profit.Render(result)
		case levelWarn:
			result = m.c.Styles.Warn.Render(result)
		default:
			result = m.c.Styles.Critical.Render(result)
		}
	}
	return append(lines, "", result, "", "esc hide (keeps running)")
}

func (f *flattenModal) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	switch {
	case f.preview && isYes(m, k):
		f.preview = false
		m.data.say("FLATTEN: halting, cancelling, closing…")
		return m.startFlatten()
	case isNo(m, k):
		m.modal = nil
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
