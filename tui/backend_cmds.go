package tui

import (
	"cockpit/readmodel"

	"context"
	"time"

	tea "charm.land/bubbletea/v2"
)

// quietTick is the render period when nothing happens: on the wall clock's half seconds, so
// the clock's second changes on a tick and an event waits at most that long.
const quietTick = 500 * time.Millisecond

// tick schedules the next render tick: after Tick while events come (fast), else on the
// next half second of the wall clock.
func (m *Model) tick(fast bool) tea.Cmd {
	return tea.Tick(tickDelay(time.Now(), m.opts.Tick, fast), func(time.Time) tea.Msg { return TickMsg{} })
}

// tickDelay is how long until the next render tick: every (fast), else the next half second.
func tickDelay(now time.Time, every time.Duration, fast bool) time.Duration {
	if fast || every >= quietTick {
		return every
	}
	return now.Truncate(quietTick).Add(quietTick).Sub(now)
}

// beforeMark is how long until just before the next multiple of d on the wall clock (a
// tenth of d before it, at least half of d away): a snapshot polled then is on screen at
// the tick of that mark, with the clock's new second, in one frame.
func beforeMark(now time.Time, d time.Duration) time.Duration {
	next := now.Truncate(d).Add(d - d/10)
	for next.Sub(now) < d/2 {
		next = next.Add(d)
	}
	return next.Sub(now)
}

// poll reads a snapshot just before the next multiple of d on the wall clock (beforeMark:
// x.9 s for the default 1 s), off the UI goroutine; one poll is in flight at a time. The
// snapshot lands before the tick that redraws the clock's new second: one frame a second idle.
func (m *Model) poll(d time.Duration) tea.Cmd {
	if m.be == nil {
		return nil
	}
	be := m.be
	read := func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return SnapshotMsg{Snapshot: be.Snapshot(ctx)}
	}
	if d <= 0 {
		return read
	}
	return tea.Tick(beforeMark(time.Now(), d), func(time.Time) tea.Msg { return read() })
}

// refresh reads a snapshot now, outside the polling rhythm.
func (m *Model) refresh() tea.Cmd {
	if m.be == nil {
		return nil
	}
	be := m.be
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return SnapshotMsg{Snapshot: be.Snapshot(ctx), OneOff: true}
	}
}

// act runs a backend action off the UI goroutine and reports it.
func (m *Model) act(what Action, id string, fn func(ctx context.Context) (string, error)) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		info, err := fn(ctx)
		return ActionDoneMsg{What: what, ID: id, Info: info, Err: err}
	}
}

// halt writes the HALT sentinel through the backend (no confirmation: stopping is safe);
// broker halts this broker only (the command palette's :halt broker).
func (m *Model) halt(reason string, broker bool) tea.Cmd {
	if m.be == nil {
		return nil
	}
	be := m.be
	if broker {
		m.data.say("HALT " + m.data.Snap.Broker + " requested — writing its HALT file…")
		return m.act(ActHaltBroker, "", func(ctx context.Context) (string, error) { return "", be.HaltBroker(ctx, reason) })
	}
	m.data.say("HALT requested — writing the HALT file…")
	return m.act(ActHalt, "", func(ctx context.Context) (string, error) { return "", be.Halt(ctx, reason) })
}

func (m *Model) loadAudit(f readmodel.AuditFilter) tea.Cmd {
	if m.be == nil {
		return nil
	}
	be := m.be
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		rows, err := be.Audit(ctx, f)
		return AuditPageMsg{Rows: rows, Filter: f, Err: err}
	}
}

// openFlatten shows the preview, or the running flatten's progress.
func (m *Model) openFlatten() {
	if m.flat.running() {
		m.modal = &flattenModal{c: m.c, run: m.flat}
		return
	}
	m.modal = newFlattenPreview(m.c)
}

// openForm opens the mandate form; its commit goes through the backend.
func (m *Model) openForm() {
	form := NewMandateForm(m.data.Snap.Broker, m.data.Snap.Mandate)
	be := m.be
	form.Commit = func(doc []byte, days int, typed string) tea.Cmd {
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := be.CommitMandate(ctx, doc, days, typed)
			return CommitDoneMsg{Result: res, Err: err}
		}
	}
	m.modal = &formModal{c: m.c, form: form}
}
