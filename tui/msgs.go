package tui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"cockpit/engine"
	"cockpit/live"
)

// TickMsg redraws the screen (countdowns, ages, the clock) at a fixed rate.
type TickMsg struct{}

// SnapshotMsg carries a fresh snapshot; a one-off refresh (after an action) does not
// schedule the next poll.
type SnapshotMsg struct {
	Snapshot Snapshot
	OneOff   bool
}

// EventMsg carries one engine event (sent with Program.Send by the engine's follower).
type EventMsg struct{ Event engine.Event }

// FlattenProgressMsg is one step of a flatten the operator started.
type FlattenProgressMsg struct{ Progress live.FlattenProgress }

// FlattenDoneMsg ends a flatten with the broker's verified answer.
type FlattenDoneMsg struct{ Report live.FlattenReport }

// ActionDoneMsg reports an operator action's result.
type ActionDoneMsg struct {
	What string // halt, resume, reduce, approve, deny, cancel, close, export
	ID   string
	Info string
	Err  error
}

// AuditPageMsg carries rows for the full audit view.
type AuditPageMsg struct {
	Rows   []AuditRow
	Filter AuditFilter
	Err    error
}

// CommitDoneMsg reports a mandate commit from the form.
type CommitDoneMsg struct {
	Result *live.CommitResult
	Err    error
}

func (m *Model) tick() tea.Cmd {
	return tea.Tick(m.opts.Tick, func(time.Time) tea.Msg { return TickMsg{} })
}

// poll reads a snapshot after d, off the UI goroutine; one poll is in flight at a time.
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
	return tea.Tick(d, func(time.Time) tea.Msg { return read() })
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
func (m *Model) act(what, id string, fn func(ctx context.Context) (string, error)) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		info, err := fn(ctx)
		return ActionDoneMsg{What: what, ID: id, Info: info, Err: err}
	}
}
