package session

import (
	"context"
	"testing"

	"cockpit/store"
)

// TestActionsAuditTheContextsOperator: an action handed a ctx from WithOperator is audited as that
// operator (an SSH key, say), and one without it as the screen's.
func TestActionsAuditTheContextsOperator(t *testing.T) {
	cases := []struct {
		name string
		ctx  context.Context
		want string
	}{
		{"ssh key", WithOperator(context.Background(), "ssh:alice@laptop"), "ssh:alice@laptop"},
		{"screen", context.Background(), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := testSession(t)
			b := newBackend(s)
			want := c.want
			if want == "" {
				want = b.operator.ID
			}
			if err := b.Halt(c.ctx, "test"); err != nil {
				t.Fatal(err)
			}
			evs, err := s.rt.DB.Events(context.Background(), store.Filter{Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range evs {
				if e.ActorKind == "operator" {
					got = append(got, e.ActorID)
				}
			}
			if len(got) != 1 || got[0] != want {
				t.Errorf("operator records = %q, want one by %q", got, want)
			}
		})
	}
}
