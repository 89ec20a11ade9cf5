package tui

import (
	"cockpit/readmodel"

	"context"

	"cockpit/live/gate"
	"cockpit/live/mandatefile"
)

// Backend is everything the screen reads and does. The screen never touches the broker, the
// store or the sentinels itself: cmd/cockpit implements Backend over a running session, and
// tests use a fake. Every action is audited by the backend as the operator's.
type Backend interface {
	// Snapshot reads the state the screen shows; it runs off the UI goroutine.
	Snapshot(ctx context.Context) readmodel.Snapshot
	// Halt writes the global HALT sentinel (everything on the root stops), pauses the agent
	// and lets the halt action cancel resting orders.
	Halt(ctx context.Context, reason string) error
	// HaltBroker is Halt for this broker only (its own HALT sentinel).
	HaltBroker(ctx context.Context, reason string) error
	// ReduceOnly writes the broker's REDUCE_ONLY sentinel.
	ReduceOnly(ctx context.Context, reason string) error
	// Resume removes the HALT (and REDUCE_ONLY) sentinels that stop this broker, global ones
	// included.
	Resume(ctx context.Context, reason string) error
	// Flatten halts, cancels every resting order, closes every position (reduce-only,
	// through the gate's operator path) and verifies with the broker.
	Flatten(ctx context.Context, progress func(gate.FlattenProgress)) gate.FlattenReport
	// Approve resolves a review item approved (a one-use grant); Deny resolves it denied.
	Approve(ctx context.Context, id, reason string) error
	Deny(ctx context.Context, id, reason string) error
	// Cancel cancels one resting order; ClosePosition closes one position (reduce-only).
	Cancel(ctx context.Context, orderID string) error
	ClosePosition(ctx context.Context, symbol string) error
	// Block puts a symbol on the session block list (the agent's orders in it are denied);
	// Unblock takes it off. Both are audited.
	Block(ctx context.Context, symbol, reason string) error
	Unblock(ctx context.Context, symbol, reason string) error
	// Audit reads a page of the audit trail.
	Audit(ctx context.Context, f readmodel.AuditFilter) ([]readmodel.AuditRow, error)
	// ExportAudit writes the audit trail to a file and returns its path.
	ExportAudit(ctx context.Context) (string, error)
	// CommitMandate commits a mandate document after the typed consent.
	CommitMandate(ctx context.Context, doc []byte, days int, typed string) (*mandatefile.CommitResult, error)
}
