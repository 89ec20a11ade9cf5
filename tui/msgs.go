package tui

import (
	"cockpit/readmodel"

	"cockpit/live/gate"
	"cockpit/live/mandatefile"
)

// TickMsg redraws the screen (countdowns, ages, the clock) at a fixed rate.
type TickMsg struct{}

// SnapshotMsg carries a fresh snapshot; a one-off refresh (after an action) does not
// schedule the next poll.
type SnapshotMsg struct {
	Snapshot readmodel.Snapshot
	OneOff   bool
}

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
	Rows   []readmodel.AuditRow
	Filter readmodel.AuditFilter
	Err    error
}

// CommitDoneMsg reports a mandate commit from the form.
type CommitDoneMsg struct {
	Result *mandatefile.CommitResult
	Err    error
}
