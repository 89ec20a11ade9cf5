package session

import (
	"context"

	"cockpit/live"
)

type operatorKey struct{}

// WithOperator returns ctx carrying who acts ("ssh:alice@laptop", "tui:bob"); a Backend audits
// the actions it is handed with that ctx as that operator's.
func WithOperator(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, operatorKey{}, name)
}

// OperatorFrom returns the operator name ctx carries, or fallback when it carries none.
func OperatorFrom(ctx context.Context, fallback string) string {
	if ctx != nil {
		if n, ok := ctx.Value(operatorKey{}).(string); ok && n != "" {
			return n
		}
	}
	return fallback
}

// op is the principal an action with ctx is audited as: the ctx's operator, else the screen's.
func (b *Backend) op(ctx context.Context) live.Principal {
	if n := OperatorFrom(ctx, ""); n != "" {
		return live.Operator(n, b.s.id)
	}
	return b.operator
}
