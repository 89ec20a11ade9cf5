package sshserve

import (
	"context"
	"strings"
	"testing"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/mandatefile"
	"cockpit/session"
	"cockpit/tui"
)

// spy is a backend that records each action and the operator its ctx carries.
type spy struct {
	tui.Backend
	calls []string
}

func (s *spy) note(ctx context.Context, what string) {
	s.calls = append(s.calls, what+" by "+session.OperatorFrom(ctx, "?"))
}
func (s *spy) Halt(ctx context.Context, _ string) error       { s.note(ctx, "halt"); return nil }
func (s *spy) HaltBroker(ctx context.Context, _ string) error { s.note(ctx, "halt broker"); return nil }
func (s *spy) ReduceOnly(ctx context.Context, _ string) error { s.note(ctx, "reduce"); return nil }
func (s *spy) Resume(ctx context.Context, _ string) error     { s.note(ctx, "resume"); return nil }
func (s *spy) Flatten(ctx context.Context, _ func(gate.FlattenProgress)) gate.FlattenReport {
	s.note(ctx, "flatten")
	return gate.FlattenReport{}
}
func (s *spy) Approve(ctx context.Context, _, _ string) error    { s.note(ctx, "approve"); return nil }
func (s *spy) Deny(ctx context.Context, _, _ string) error       { s.note(ctx, "deny"); return nil }
func (s *spy) Cancel(ctx context.Context, _ string) error        { s.note(ctx, "cancel"); return nil }
func (s *spy) ClosePosition(ctx context.Context, _ string) error { s.note(ctx, "close"); return nil }
func (s *spy) Block(ctx context.Context, _, _ string) error      { s.note(ctx, "block"); return nil }
func (s *spy) Unblock(ctx context.Context, _, _ string) error    { s.note(ctx, "unblock"); return nil }
func (s *spy) ExportAudit(ctx context.Context) (string, error)   { s.note(ctx, "export"); return "", nil }
func (s *spy) CommitMandate(ctx context.Context, _ []byte, _ int, _ string) (*mandatefile.CommitResult, error) {
	s.note(ctx, "commit mandate")
	return &mandatefile.CommitResult{}, nil
}

// act runs one action through g; refused reports whether it was refused.
func act(g *guarded, action string) (refused bool) {
	ctx := context.Background()
	var err error
	switch action {
	case "halt":
		err = g.Halt(ctx, "r")
	case "halt broker":
		err = g.HaltBroker(ctx, "r")
	case "reduce":
		err = g.ReduceOnly(ctx, "r")
	case "resume":
		err = g.Resume(ctx, "r")
	case "flatten":
		if rep := g.Flatten(ctx, nil); len(rep.Errors) > 0 {
			err = context.Canceled
		}
	case "approve":
		err = g.Approve(ctx, "ap", "r")
	case "deny":
		err = g.Deny(ctx, "ap", "r")
	case "cancel":
		err = g.Cancel(ctx, "o1")
	case "close":
		err = g.ClosePosition(ctx, "AAPL")
	case "block":
		err = g.Block(ctx, "AAPL", "r")
	case "unblock":
		err = g.Unblock(ctx, "AAPL", "r")
	case "export":
		_, err = g.ExportAudit(ctx)
	case "commit mandate":
		_, err = g.CommitMandate(ctx, nil, 1, "x")
	}
	return err != nil
}

// TestGuardRoles: each role's allowed actions reach the backend as ssh:<key>; the others are
// refused before it, each refusal audited once, naming who and what.
func TestGuardRoles(t *testing.T) {
	all := []string{"halt", "halt broker", "reduce", "resume", "flatten", "approve", "deny", "cancel", "close", "block", "unblock", "export", "commit mandate"}
	allowed := map[Role][]string{
		RoleViewer:   {"halt", "halt broker"},
		RoleOperator: {"halt", "halt broker", "reduce", "resume", "flatten", "approve", "deny", "cancel", "close", "block", "unblock", "export"},
		RoleAdmin:    all,
	}
	for _, role := range []Role{RoleViewer, RoleOperator, RoleAdmin} {
		t.Run(role.String(), func(t *testing.T) {
			be := &spy{}
			var audited []live.AuditRecord
			g := &guarded{be: be, id: Identity{Role: role, Comment: "alice@laptop", Fingerprint: "SHA256:x"},
				audit: func(_ context.Context, r live.AuditRecord) { audited = append(audited, r) }}
			ok := map[string]bool{}
			for _, a := range allowed[role] {
				ok[a] = true
			}
			for _, a := range all {
				before := len(audited)
				refused := act(g, a)
				if refused == ok[a] {
					t.Errorf("%s %s: refused = %v, want %v", role, a, refused, !ok[a])
				}
				if refused {
					if len(audited) != before+1 || !strings.Contains(audited[before].Error, role.String()+" alice@laptop may not "+a) {
						t.Errorf("%s %s: refusal audit = %+v", role, a, audited[before:])
					}
				}
			}
			for i, c := range be.calls {
				if want := allowed[role][i] + " by ssh:alice@laptop"; c != want {
					t.Errorf("call %d = %q, want %q", i, c, want)
				}
			}
			if len(be.calls) != len(allowed[role]) {
				t.Errorf("backend calls %q, want %d", be.calls, len(allowed[role]))
			}
		})
	}
}

// TestUnknownActionRefused: an action the table does not name is refused for every role.
func TestUnknownActionRefused(t *testing.T) {
	for _, r := range []Role{RoleNone, RoleViewer, RoleOperator, RoleAdmin} {
		if Allowed(r, "launch") {
			t.Errorf("%s may launch", r)
		}
	}
	if Allowed(RoleNone, "halt") {
		t.Error("no role may halt")
	}
}
