package redact

import (
	"context"
	"log/slog"
)

// Handler wraps a slog handler so nothing secret reaches the log: attributes under
// sensitive keys become "[redacted]", and every string (the message included) goes through
// Secrets.
func Handler(h slog.Handler) slog.Handler { return redacting{h} }

type redacting struct{ next slog.Handler }

func (r redacting) Enabled(ctx context.Context, l slog.Level) bool { return r.next.Enabled(ctx, l) }

func (r redacting) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, Secrets(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(redactAttr(a))
		return true
	})
	return r.next.Handle(ctx, out)
}

func (r redacting) WithAttrs(attrs []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		red[i] = redactAttr(a)
	}
	return redacting{r.next.WithAttrs(red)}
}

func (r redacting) WithGroup(name string) slog.Handler { return redacting{r.next.WithGroup(name)} }

func redactAttr(a slog.Attr) slog.Attr {
	if IsSensitiveKey(a.Key, SinkArguments) {
		return slog.String(a.Key, Redacted)
	}
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, Secrets(v.String()))
	case slog.KindGroup:
		attrs := v.Group()
		red := make([]any, len(attrs))
		for i, g := range attrs {
			red[i] = redactAttr(g)
		}
		return slog.Group(a.Key, red...)
	case slog.KindAny:
		return slog.String(a.Key, Secrets(v.String()))
	}
	return slog.Attr{Key: a.Key, Value: v}
}
