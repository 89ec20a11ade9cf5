package tui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/termsafe"
)

// flattenRun is a flatten the operator started: its steps as they happen and, at the end,
// the broker's verified answer. Until the report arrives the result reads "—".
type flattenRun struct {
	ch      chan tea.Msg
	steps   []gate.FlattenProgress
	report  *gate.FlattenReport
	started time.Time
}

// startFlatten runs the backend's flatten off the UI goroutine, feeding progress back.
func startFlatten(be Backend, now time.Time) (*flattenRun, tea.Cmd) {
	run := &flattenRun{ch: make(chan tea.Msg, 256), started: now}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		rep := be.Flatten(ctx, func(p gate.FlattenProgress) {
			select {
			case run.ch <- FlattenProgressMsg{Progress: p}:
			default: // the screen is behind: the report still carries everything
			}
		})
		run.ch <- FlattenDoneMsg{Report: rep}
		close(run.ch)
	}()
	return run, run.wait()
}

// running reports whether a flatten was started and has no report yet.
func (r *flattenRun) running() bool { return r != nil && r.report == nil }

func (r *flattenRun) wait() tea.Cmd {
	ch := r.ch
	return func() tea.Msg {
		msg, ok := <-ch
		if !ok {
			return nil
		}
		return msg
	}
}

// progress records a step and waits for the next.
func (r *flattenRun) progress(p gate.FlattenProgress) tea.Cmd {
	if r == nil {
		return nil
	}
	r.steps = append(r.steps, p)
	return r.wait()
}

// done records the broker's verified answer; false when no flatten runs.
func (r *flattenRun) done(rep gate.FlattenReport) bool {
	if r == nil {
		return false
	}
	r.report = &rep
	return true
}

// flattenLevel grades a flatten report: flat is good news, a cancel-only halt that kept
// positions as asked is a warning, anything else is critical.
func flattenLevel(rep gate.FlattenReport) int {
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
	c       *Common
	preview bool
	run     *flattenRun
}

// newFlattenPreview asks before flattening; the preview reads the latest snapshot each time
// it is drawn, so it stays live while open.
func newFlattenPreview(c *Common) *flattenModal {
	return &flattenModal{c: c, preview: true}
}

func (f *flattenModal) Typing() bool { return false }

func (f *flattenModal) View(w, h int) string {
	mode := "PAPER"
	if f.c.Data.Snap.Live {
		mode = "LIVE"
	}
	if f.preview {
		return frame(f.c, "FLATTEN — "+mode, f.previewLines(), 80, w, h)
	}
	return frame(f.c, "FLATTEN — "+mode, f.run.lines(f.c.Styles), 80, w, h)
}

func (f *flattenModal) previewLines() []string {
	k := f.c.Styles.Key.Render
	var positions []live.Position
	for _, p := range f.c.Data.Snap.Positions {
		if p.Qty.Sign() != 0 {
			positions = append(positions, p)
		}
	}
	orders := len(f.c.Data.Snap.Orders)
	lines := []string{
		"1. HALT: write the HALT file, pause the agent, close the gate",
		fmt.Sprintf("2. Cancel %d resting order%s", orders, plural(orders)),
		fmt.Sprintf("3. Close %d position%s (reduce-only, market, through the gate):", len(positions), plural(len(positions))),
	}
	for i, p := range positions {
		if i == 8 {
			lines = append(lines, fmt.Sprintf("     … and %d more", len(positions)-8))
			break
		}
		side := "SELL"
		if p.Qty.Sign() < 0 {
			side = "BUY"
		}
		lines = append(lines, fmt.Sprintf("     %-6s %12s → %s %s", termsafe.Text(p.Symbol), qty(p.Qty), side, qty(p.Qty.Abs())))
	}
	lines = append(lines, "4. Verify with the broker: open orders = 0, positions = 0", "",
		k("y")+" flatten now    "+k("n")+"/esc back (default)")
	return lines
}

// lines shows each phase's progress and, only after the broker was re-read, the result.
func (run *flattenRun) lines(st Styles) []string {
	if run == nil {
		return []string{"no flatten running"}
	}
	type phase struct {
		name  string
		ph    gate.FlattenPhase
		done  int
		total int
		fails int
		seen  bool
	}
	phases := []*phase{{name: "Cancel resting orders", ph: gate.PhaseCancel}, {name: "Close positions", ph: gate.PhaseClose},
		{name: "Verify with the broker", ph: gate.PhaseVerify}}
	var failures []string
	for _, s := range run.steps {
		for _, p := range phases {
			if s.Phase == p.ph {
				p.seen, p.done, p.total = true, max(p.done, s.Done), max(p.total, s.Total)
				if !s.OK && s.Err != "" {
					p.fails++
					failures = append(failures, fmt.Sprintf("%s %s: %s", s.Phase, untrusted(s.Item, 0), untrusted(s.Err, 60)))
				}
			}
		}
	}
	lines := []string{"1. HALT                                          ✓"}
	for i, p := range phases {
		status := "…"
		switch {
		case p.ph == gate.PhaseVerify && run.report != nil:
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
		result = "Result: " + untrusted(run.report.Summary(), 0)
		switch flattenLevel(*run.report) {
		case levelInfo:
			result = st.Profit.Render(result)
		case levelWarn:
			result = st.Warn.Render(result)
		default:
			result = st.Critical.Render(result)
		}
	}
	return append(lines, "", result, "", "esc hide (keeps running)")
}

// Update: y in the preview asks the root to start the flatten; esc hides the modal (a
// running flatten keeps running).
func (f *flattenModal) Update(msg tea.Msg) (tea.Msg, tea.Cmd) {
	switch {
	case f.preview && isYes(f.c, msg):
		return startFlattenMsg{}, nil
	case isNo(f.c, msg):
		return closeMsg{}, nil
	}
	return nil, nil
}
