package sshserve

import (
	"cockpit/readmodel"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/mandatefile"
	"cockpit/session"
	"cockpit/tui"
)

// KindActionRefused is the audit kind of an action a key's role does not allow.
const KindActionRefused = "ssh_action_refused"

// guarded is the backend one SSH connection's screen gets: every call carries the key's
// actor (session.WithOperator), and an action the key's role does not allow is refused and
// audited here, whatever the screen shows.
type guarded struct {
	be    tui.Backend
	id    Identity
	audit func(ctx context.Context, r live.AuditRecord)
	peers func() []string // who is connected, for the status bar
	calls *inflight       // the server's count of backend calls under way
}

// errClosed is the answer to a call after the server began to close.
var errClosed = errors.New("the SSH server is closing")

// inflight counts backend calls under way so that closing waits for them: once it is
// closed, no call starts (the session may be closed next).
type inflight struct {
	mu     sync.Mutex
	n      int
	closed bool
	zero   sync.Cond
}

func newInflight() *inflight {
	f := &inflight{}
	f.zero.L = &f.mu
	return f
}

// enter starts a call, false once closed (a nil inflight counts nothing).
func (f *inflight) enter() bool {
	if f == nil {
		return true
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.n++
	return true
}

// leave ends a call.
func (f *inflight) leave() {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n--; f.n == 0 {
		f.zero.Broadcast()
	}
}

// close refuses new calls and waits for those under way.
func (f *inflight) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	for f.n > 0 {
		f.zero.Wait()
	}
}

var _ tui.Backend = (*guarded)(nil)

// need is the least role each action takes.
var need = map[string]Role{
	"halt": RoleViewer, "halt broker": RoleViewer,
	"reduce": RoleOperator, "resume": RoleOperator, "flatten": RoleOperator, "approve": RoleOperator,
	"deny": RoleOperator, "cancel": RoleOperator, "close": RoleOperator, "block": RoleOperator,
	"unblock": RoleOperator, "export": RoleOperator,
	"commit mandate": RoleAdmin,
}

// Allows reports whether this screen's key may take action (the screen offers only those).
func (g *guarded) Allows(action string) bool { return Allowed(g.id.Role, action) }

// Allowed reports whether role may do action (an action it does not know: no).
func Allowed(role Role, action string) bool {
	r, ok := need[action]
	return ok && role >= r
}

// ctx is the call's ctx carrying the key's actor.
func (g *guarded) ctx(ctx context.Context) context.Context {
	return session.WithOperator(ctx, g.id.Actor())
}

// begin refuses action when the role does not allow it, auditing the refusal, or when the
// server is closing; else done must be called once the backend call returns.
func (g *guarded) begin(ctx context.Context, action, subject string) (done func(), err error) {
	if !Allowed(g.id.Role, action) {
		err := fmt.Errorf("%s %s may not %s", g.id.Role, g.id.Name(), action)
		g.audit(ctx, live.AuditRecord{Kind: KindActionRefused, Outcome: live.OutcomeRejected, Tool: "ssh",
			Intent: action + " " + subject, Error: err.Error(),
			Detail: map[string]any{"role": g.id.Role.String(), "fingerprint": g.id.Fingerprint, "action": action, "subject": subject}})
		return nil, err
	}
	if !g.calls.enter() {
		return nil, errClosed
	}
	return g.calls.leave, nil
}

func (g *guarded) Snapshot(ctx context.Context) readmodel.Snapshot {
	if !g.calls.enter() {
		return readmodel.Snapshot{Taken: time.Now(), Owned: readmodel.Owned{BrokerErr: errClosed.Error()}}
	}
	defer g.calls.leave()
	s := g.be.Snapshot(g.ctx(ctx))
	if g.peers != nil {
		me := g.id.Name() + " (" + g.id.Role.String() + ")"
		for _, p := range g.peers() {
			if p == me {
				p += " ← you"
			}
			s.Remote = append(s.Remote, p)
		}
	}
	return s
}

func (g *guarded) Halt(ctx context.Context, reason string) error {
	done, err := g.begin(ctx, "halt", "")
	if err != nil {
		return err
	}
	defer done()
	return g.be.Halt(g.ctx(ctx), reason)
}

func (g *guarded) HaltBroker(ctx context.Context, reason string) error {
	done, err := g.begin(ctx, "halt broker", "")
	if err != nil {
		return err
	}
	defer done()
	return g.be.HaltBroker(g.ctx(ctx), reason)
}

func (g *guarded) ReduceOnly(ctx context.Context, reason string) error {
	done, err := g.begin(ctx, "reduce", "")
	if err != nil {
		return err
	}
	defer done()
	return g.be.ReduceOnly(g.ctx(ctx), reason)
}

func (g *guarded) Resume(ctx context.Context, reason string) error {
	done, err := g.begin(ctx, "resume", "")
	if err != nil {
		return err
	}
	defer done()
	return g.be.Resume(g.ctx(ctx), reason)
}

func (g *guarded) Flatten(ctx context.Context, progress func(gate.FlattenProgress)) gate.FlattenReport {
	done, err := g.begin(ctx, "flatten", "")
	if err != nil {
		return gate.FlattenReport{Refused: err.Error(), VerifyErr: err.Error(), Errors: []gate.FlattenError{{Item: "flatten", Err: err.Error()}}}
	}
	defer done()
	return g.be.Flatten(g.ctx(ctx), progress)
}

func (g *guarded) Approve(ctx context.Context, id, reason string) error {
	done, err := g.begin(ctx, "approve", id)
	if err != nil {
		return err
	}
	defer done()
	return g.be.Approve(g.ctx(ctx), id, reason)
}

func (g *guarded) Deny(ctx context.Context, id, reason string) error {
	done, err := g.begin(ctx, "deny", id)
	if err != nil {
		return err
	}
	defer done()
	return g.be.Deny(g.ctx(ctx), id, reason)
}

func (g *guarded) Cancel(ctx context.Context, orderID string) error {
	done, err := g.begin(ctx, "cancel", orderID)
	if err != nil {
		return err
	}
	defer done()
	return g.be.Cancel(g.ctx(ctx), orderID)
}

func (g *guarded) ClosePosition(ctx context.Context, symbol string) error {
	done, err := g.begin(ctx, "close", symbol)
	if err != nil {
		return err
	}
	defer done()
	return g.be.ClosePosition(g.ctx(ctx), symbol)
}

func (g *guarded) Block(ctx context.Context, symbol, reason string) error {
	done, err := g.begin(ctx, "block", symbol)
	if err != nil {
		return err
	}
	defer done()
	return g.be.Block(g.ctx(ctx), symbol, reason)
}

func (g *guarded) Unblock(ctx context.Context, symbol, reason string) error {
	done, err := g.begin(ctx, "unblock", symbol)
	if err != nil {
		return err
	}
	defer done()
	return g.be.Unblock(g.ctx(ctx), symbol, reason)
}

func (g *guarded) Audit(ctx context.Context, f readmodel.AuditFilter) ([]readmodel.AuditRow, error) {
	if !g.calls.enter() {
		return nil, errClosed
	}
	defer g.calls.leave()
	return g.be.Audit(g.ctx(ctx), f)
}

func (g *guarded) ExportAudit(ctx context.Context) (string, error) {
	done, err := g.begin(ctx, "export", "")
	if err != nil {
		return "", err
	}
	defer done()
	return g.be.ExportAudit(g.ctx(ctx))
}

func (g *guarded) CommitMandate(ctx context.Context, doc []byte, days int, typed string) (*mandatefile.CommitResult, error) {
	done, err := g.begin(ctx, "commit mandate", "")
	if err != nil {
		return nil, err
	}
	defer done()
	return g.be.CommitMandate(g.ctx(ctx), doc, days, typed)
}
