package mcpbroker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/redact"
	"cockpit/live/toolbroker"
)

// Broker is a broker's MCP server as a live.Broker: toolbroker.Broker over the client session.
type Broker struct {
	*toolbroker.Broker
	link    *link
	tools   []ToolInfo
	timeout time.Duration
	mode    string
	clock   func() time.Time

	mu     sync.Mutex
	health live.BrokerHealth
}

var (
	_ live.Broker         = (*Broker)(nil)
	_ live.HealthReporter = (*Broker)(nil)
	_ toolbroker.Caller   = (*Broker)(nil)
)

// Options configure a connection.
type Options struct {
	Key     string        // broker key (mandate, halt, counter)
	Profile *live.Profile // tool names, extractor, quote parsing
	Mode    string        // paper | live, for the screen
	Timeout time.Duration // per call; 0 = 30s
	Now     func() time.Time
	// Redial builds a fresh transport to the same server (Endpoint.Transport): a reply that
	// breaks the session fails that call and the next call connects again, and so does the
	// call after hungCalls calls in a row that ran out of Timeout (a server that hangs: over
	// stdio, a new process). Nil: a broken session stays broken.
	Redial func() (mcp.Transport, error)
}

// Connect initialises an MCP client session over t and lists the server's tools.
func Connect(ctx context.Context, t mcp.Transport, o Options) (*Broker, error) {
	if o.Profile == nil {
		return nil, errors.New("mcp broker: no profile")
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	b := &Broker{timeout: o.Timeout, mode: o.Mode, clock: o.Now}
	b.Broker = &toolbroker.Broker{Key: o.Key, Profile: o.Profile, Caller: b, Now: o.Now}
	b.link = &link{key: o.Key, client: mcp.NewClient(&mcp.Implementation{Name: "cockpit", Version: "1"}, nil),
		redial: o.Redial, timeout: o.Timeout}
	start := o.Now()
	cs, err := b.link.dial(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("mcp broker %s: connect: %w", o.Key, err)
	}
	b.link.mu.Lock()
	b.link.use(cs, t)
	b.link.mu.Unlock()
	cctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	for tool, err := range cs.Tools(cctx, nil) {
		if err != nil {
			b.link.close()
			return nil, fmt.Errorf("mcp broker %s: list tools: %w", o.Key, explain(err, t))
		}
		b.tools = append(b.tools, toolInfo(tool))
	}
	b.observe(start, nil)
	return b, nil
}

// toolInfo keeps what classification and the agent need of a listed tool.
func toolInfo(t *mcp.Tool) ToolInfo {
	ti := ToolInfo{Name: t.Name, Description: t.Description}
	if t.Annotations != nil {
		ti.ReadOnlyHint = t.Annotations.ReadOnlyHint
	}
	if t.InputSchema != nil {
		if raw, err := json.Marshal(t.InputSchema); err == nil {
			if v, err := jsonv.Parse(raw, jsonv.Options{}); err == nil {
				ti.Schema, _ = v.(*jsonv.Object)
			}
		}
	}
	return ti
}

// Tools returns the tools the server listed at connect time.
func (b *Broker) Tools() []ToolInfo { return b.tools }

// Close ends the session (and, over stdio, the server process) for good.
func (b *Broker) Close() error { return b.link.close() }

// CallTool implements toolbroker.Caller: a protocol or transport failure is an error (one that
// broke the session has the next call connect again); a tool-level error (isError) is an error
// envelope {"status":"error","error":…}; otherwise the structured content, else the text
// content decoded as JSON, else the text itself.
func (b *Broker) CallTool(ctx context.Context, name string, args *jsonv.Object) (any, error) {
	raw, err := jsonv.Marshal(args, jsonv.Compact)
	if err != nil {
		return nil, err
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	start := b.clock()
	cs, gen, err := b.link.session(ctx)
	if err != nil {
		b.observe(start, err)
		return nil, err
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(raw)})
	ranOut := errors.Is(err, context.DeadlineExceeded) && parent.Err() == nil // our Timeout, not the caller's
	err = b.link.failed(gen, err, ranOut)
	b.observe(start, err)
	if err != nil {
		return nil, err
	}
	return decode(res)
}

// decode turns a tool result into a JSON value.
func decode(res *mcp.CallToolResult) (any, error) {
	var text strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	if res.IsError {
		return jsonv.ObjectOf("status", "error", "error", text.String()), nil
	}
	if res.StructuredContent != nil {
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, fmt.Errorf("structured content: %w", err)
		}
		return jsonv.Parse(raw, jsonv.Options{RejectDuplicates: true})
	}
	if v, err := jsonv.ParseString(text.String(), jsonv.Options{RejectDuplicates: true}); err == nil {
		return v, nil
	}
	return text.String(), nil
}

// observe records the outcome of a request for Health.
func (b *Broker) observe(start time.Time, err error) {
	end := b.clock()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.health = live.BrokerHealth{Connected: err == nil, Mode: b.mode, LastLatency: end.Sub(start), Checked: end}
	if err != nil {
		b.health.LastError = redact.Text(err.Error())
	}
}

// Health implements live.HealthReporter.
func (b *Broker) Health() live.BrokerHealth {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.health
}
