package session

import (
	"context"
	"errors"
	"io"

	"cockpit/readmodel"

	"cockpit/live"
)

// ErrNoHealth reports a connector that cannot say how its link is.
var ErrNoHealth = errors.New("the connector reports no link health")

// ProbeBroker opens the configured broker key (without its account lock: it only reads), reads
// its account once and returns the connector's link health and, for an MCP server, its tools
// with the class the agent is offered them with (BrokerTools). A live table without the run's
// --live flag is refused like any other open.
func (rt *Runtime) ProbeBroker(ctx context.Context, key string) (live.BrokerHealth, []readmodel.BrokerTool, error) {
	b, err := rt.openConfigured(key)
	if err != nil {
		return live.BrokerHealth{}, nil, err
	}
	if c, ok := b.(io.Closer); ok {
		defer c.Close()
	}
	tools := rt.BrokerTools(b, key)
	hr, ok := b.(live.HealthReporter)
	if !ok {
		return live.BrokerHealth{}, tools, ErrNoHealth
	}
	_, err = b.Account(ctx)
	h := hr.Health()
	if err != nil && h.LastError == "" {
		h.LastError = err.Error()
	}
	return h, tools, nil
}
