package live

import (
	"context"
	"sync"
	"time"

	"cockpit/live/money"
)

// ActorKind says who acted.
type ActorKind string

// Actors.
const (
	ActorAgent    ActorKind = "agent"
	ActorOperator ActorKind = "operator"
	ActorSystem   ActorKind = "system"
)

// Principal is who an action is attributed to: the agent (with its turn and tool call), a
// human operator, or cockpit itself.
type Principal struct {
	Kind       ActorKind
	ID         string // agent name, operator name, or subsystem
	SessionID  string
	TurnID     string
	ToolCallID string
}

// Agent returns an agent principal.
func Agent(id, session string) Principal {
	return Principal{Kind: ActorAgent, ID: id, SessionID: session}
}

// Operator returns a human operator principal.
func Operator(id, session string) Principal {
	return Principal{Kind: ActorOperator, ID: id, SessionID: session}
}

// System returns a principal for cockpit's own actions (the halt watcher, reconciliation).
func System(id, session string) Principal {
	return Principal{Kind: ActorSystem, ID: id, SessionID: session}
}

// Audit kinds (the reference's vocabulary, plus cockpit's).
const (
	KindOrderPlaced      = "order_placed"
	KindOrderCancelled   = "order_cancelled"
	KindOrderRejected    = "order_rejected"
	KindBreach           = "breach"
	KindHaltTripped      = "halt_tripped"
	KindHaltCleared      = "halt_cleared"
	KindMandateCommitted = "mandate_committed"
	KindFlatten          = "flatten"
	KindReconciled       = "order_reconciled"
)

// Audit outcomes.
const (
	OutcomeAccepted      = "accepted"
	OutcomeRejected      = "rejected"
	OutcomeError         = "error"
	OutcomeBlocked       = "blocked"
	OutcomeIndeterminate = "indeterminate"
)

// GateDecision is the gate's reasoning attached to an audit record.
type GateDecision struct {
	Allowed    bool
	Decision   Decision // allow, deny, pause_for_reauth, cancel
	Checked    []string // the limits and steps checked, in order
	Limit      string
	Kind       string
	LimitValue *money.Amount
	Attempted  *money.Amount
	Approved   string // the approval (grant) that overrode a breach, if any
}

// AuditRecord is one entry of the audit trail. Sinks redact Request, Response and Detail
// before anything is stored.
type AuditRecord struct {
	Time          time.Time
	Actor         Principal
	Kind          string
	Outcome       string
	Reason        Reason
	Broker        string
	Tool          string
	ClientOrderID string
	OrderID       string
	ApprovalID    string
	Intent        string // e.g. "buy $100 AAPL (equity)"
	MandateRef    string // consent token hash of the mandate in force
	ConsentRef    string // the consent's account_ref
	Request       any    // JSON value (jsonv) or a Go value
	Response      any
	Decision      *GateDecision
	Error         string
	Detail        any
	Notional      *money.Amount // an order's notional in USD (its own column in the store)
}

// AuditSink stores audit records. Record must be durable when it returns nil.
type AuditSink interface {
	Record(ctx context.Context, r AuditRecord) error
}

// ---- write-ahead order journal

// JournalState is where a forwarded order stands in the journal.
type JournalState string

// Journal states.
const (
	JournalSubmitting    JournalState = "submitting"    // written before the broker call
	JournalAccepted      JournalState = "accepted"      // the broker took it
	JournalRejected      JournalState = "rejected"      // the broker refused it, or it never arrived
	JournalIndeterminate JournalState = "indeterminate" // the outcome is unknown; reconcile by client id
)

// JournalEntry is the write-ahead record of one forward.
type JournalEntry struct {
	ClientOrderID string
	Broker        string
	Actor         Principal
	Request       OrderRequest
	State         JournalState
	OrderID       string
	Detail        string
	Created       time.Time
	Updated       time.Time
}

// Journal records an order intent before the broker call and its outcome after. Begin must
// be durable when it returns nil: the gate never forwards without it.
type Journal interface {
	Begin(ctx context.Context, e JournalEntry) error
	Finish(ctx context.Context, clientOrderID string, state JournalState, orderID, detail string, at time.Time) error
	// AcceptedOrders counts the accepted orders on broker whose forward began on day's UTC
	// calendar day, leaving out the operator's reduce-only orders (they never count).
	AcceptedOrders(ctx context.Context, broker string, day time.Time) (int, error)
}

// MemoryJournal is an in-memory Journal.
type MemoryJournal struct {
	mu      sync.Mutex
	order   []string
	entries map[string]*JournalEntry
}

// Begin implements Journal.
func (j *MemoryJournal) Begin(_ context.Context, e JournalEntry) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.entries == nil {
		j.entries = map[string]*JournalEntry{}
	}
	e.State = JournalSubmitting
	e.Updated = e.Created
	j.entries[e.ClientOrderID] = &e
	j.order = append(j.order, e.ClientOrderID)
	return nil
}

// Finish implements Journal.
func (j *MemoryJournal) Finish(_ context.Context, id string, state JournalState, orderID, detail string, at time.Time) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	e, ok := j.entries[id]
	if !ok {
		return ErrOrderNotFound
	}
	e.State, e.OrderID, e.Detail, e.Updated = state, orderID, detail, at
	return nil
}

// AcceptedOrders implements Journal.
func (j *MemoryJournal) AcceptedOrders(_ context.Context, broker string, day time.Time) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := 0
	for _, e := range j.entries {
		if countsAgainstDay(e, broker, day) {
			n++
		}
	}
	return n, nil
}

// Entries returns the journal in write order.
func (j *MemoryJournal) Entries() []JournalEntry {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]JournalEntry, 0, len(j.order))
	for _, id := range j.order {
		out = append(out, *j.entries[id])
	}
	return out
}

// MultiSink records to every sink in order; it reports the first error but still tries all.
type MultiSink []AuditSink

// Record implements AuditSink.
func (m MultiSink) Record(ctx context.Context, r AuditRecord) error {
	var first error
	for _, s := range m {
		if err := s.Record(ctx, r); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// AuditProber is an AuditSink that can tell, without writing a record, whether a record could be
// written now; the gate asks it before forwarding an order.
type AuditProber interface {
	ProbeAudit(ctx context.Context) error
}

// ProbeAudit implements AuditProber: every sink that can be probed is.
func (m MultiSink) ProbeAudit(ctx context.Context) error {
	for _, s := range m {
		if p, ok := s.(AuditProber); ok {
			if err := p.ProbeAudit(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// ActorExternal is whoever changed the runtime root from outside this cockpit (a shell's
// touch or rm of a sentinel, another tool).
const ActorExternal ActorKind = "external"
