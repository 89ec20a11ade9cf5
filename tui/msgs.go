package tui

import (
	"cockpit/engine"
	"cockpit/live/gate"
	"cockpit/live/mandatefile"
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
type FlattenProgressMsg struct{ Progress gate.FlattenProgress }

// FlattenDoneMsg ends a flatten with the broker's verified answer.
type FlattenDoneMsg struct{ Report gate.FlattenReport }

// ActionDoneMsg reports an operator action's result.
type ActionDoneMsg struct {
	What Action
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
	Result *mandatefile.CommitResult
	Err    error
}
