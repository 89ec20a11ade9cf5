package sshserve

import (
	"context"
	"fmt"

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

// Allowed reports whether role may do action (an action it does not know: no).
func Allowed(role Role, action string) bool {
	r, ok := need[action]
	return ok && role >= r
}

// ctx is the call's ctx carrying the key's actor.
func (g *guarded) ctx(ctx context.Context) context.Context {
	return session.WithOperator(ctx, g.id.Actor())
}

// check refuses action when the role does not allow it, auditing the refusal.
func (g *guarded) check(ctx context.Context, action, subject string) error {
	if Allowed(g.id.Role, action) {
		return nil
	}
	err := fmt.Errorf("%s %s may not %s", g.id.Role, g.id.Name(), action)
	g.audit(ctx, live.AuditRecord{Kind: KindActionRefused, Outcome: live.OutcomeRejected, Tool: "ssh",
		Intent: action + " " + subject, Error: err.Error(),
		Detail: map[string]any{"role": g.id.Role.String(), "fingerprint": g.id.Fingerprint, "action": action, "subject": subject}})
	return err
}

func (g *guarded) Snapshot(ctx context.Context) tui.Snapshot {
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
	if err := g.check(ctx, "halt", ""); err != nil {
		return err
	}
	return g.be.Halt(g.ctx(ctx), reason)
}

func (g *guarded) HaltBroker(ctx context.Context, reason string) error {
	if err := g.check(ctx, "halt broker", ""); err != nil {
		return err
	}
	return g.be.HaltBroker(g.ctx(ctx), reason)
}

func (g *guarded) ReduceOnly(ctx context.Context, reason string) error {
	if err := g.check(ctx, "reduce", ""); err != nil {
		return err
	}
	return g.be.ReduceOnly(g.ctx(ctx), reason)
}

func (g *guarded) Resume(ctx context.Context, reason string) error {
	if err := g.check(ctx, "resume", ""); err != nil {
		return err
	}
	return g.be.Resume(g.ctx(ctx), reason)
}

func (g *guarded) Flatten(ctx context.Context, progress func(gate.FlattenProgress)) gate.FlattenReport {
	if err := g.check(ctx, "flatten", ""); err != nil {
		return gate.FlattenReport{VerifyErr: err.Error(), Errors: []gate.FlattenError{{Item: "flatten", Err: err.Error()}}}
	}
	return g.be.Flatten(g.ctx(ctx), progress)
}

func (g *guarded) Approve(ctx context.Context, id, reason string) error {
	if err := g.check(ctx, "approve", id); err != nil {
		return err
	}
	return g.be.Approve(g.ctx(ctx), id, reason)
}

func (g *guarded) Deny(ctx context.Context, id, reason string) error {
	if err := g.check(ctx, "deny", id); err != nil {
		return err
	}
	return g.be.Deny(g.ctx(ctx), id, reason)
}

func (g *guarded) Cancel(ctx context.Context, orderID string) error {
	if err := g.check(ctx, "cancel", orderID); err != nil {
		return err
	}
	return g.be.Cancel(g.ctx(ctx), orderID)
}

func (g *guarded) ClosePosition(ctx context.Context, symbol string) error {
	if err := g.check(ctx, "close", symbol); err != nil {
		return err
	}
	return g.be.ClosePosition(g.ctx(ctx), symbol)
}

func (g *guarded) Block(ctx context.Context, symbol, reason string) error {
	if err := g.check(ctx, "block", symbol); err != nil {
		return err
	}
	return g.be.Block(g.ctx(ctx), symbol, reason)
}

func (g *guarded) Unblock(ctx context.Context, symbol, reason string) error {
	if err := g.check(ctx, "unblock", symbol); err != nil {
		return err
	}
	return g.be.Unblock(g.ctx(ctx), symbol, reason)
}

func (g *guarded) Audit(ctx context.Context, f tui.AuditFilter) ([]tui.AuditRow, error) {
	return g.be.Audit(g.ctx(ctx), f)
}

func (g *guarded) ExportAudit(ctx context.Context) (string, error) {
	if err := g.check(ctx, "export", ""); err != nil {
		return "", err
	}
	return g.be.ExportAudit(g.ctx(ctx))
}

func (g *guarded) CommitMandate(ctx context.Context, doc []byte, days int, typed string) (*mandatefile.CommitResult, error) {
	if err := g.check(ctx, "commit mandate", ""); err != nil {
		return nil, err
	}
	return g.be.CommitMandate(g.ctx(ctx), doc, days, typed)
}
