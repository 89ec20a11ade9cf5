// Package mcpserve serves the engine's registered tools as an MCP server (`cockpit
// serve-mcp`): one MCP tool per engine tool, every call through the engine's chokepoint under
// the agent identity mcp:<client name>@<version> from the initialize handshake.
package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cockpit/engine"
	"cockpit/live/jsonv"
)

// Version is the server's implementation version in the initialize reply.
const Version = "1"

// Server is the MCP face of one engine.
type Server struct {
	eng *engine.Engine
	mcp *mcp.Server

	mu      sync.Mutex
	turns   map[*mcp.ServerSession]*engine.Turn
	clients int // client sessions served so far (each one's limits key is numbered)
}

// New builds the MCP server over the engine's registry (tools registered later are not served).
func New(eng *engine.Engine) (*Server, error) {
	s := &Server{eng: eng, turns: map[*mcp.ServerSession]*engine.Turn{}}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "cockpit", Version: Version}, nil)
	for _, t := range eng.Tools.All() {
		schema, err := jsonv.Marshal(t.Schema(), jsonv.Compact)
		if err != nil {
			return nil, fmt.Errorf("mcpserve: tool %s: schema: %w", t.Name, err)
		}
		d := &mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: json.RawMessage(schema)}
		read := t.Effect == engine.EffectRead
		d.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: read}
		if !read {
			destructive := true
			d.Annotations.DestructiveHint = &destructive
		}
		s.mcp.AddTool(d, s.handler(t.Name))
	}
	return s, nil
}

// MCP returns the underlying go-sdk server (for transports).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Run serves one transport (stdio) until the client goes away or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error { return s.mcp.Run(ctx, t) }

// handler runs one call through the engine under the session's agent identity.
func (s *Server) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		raw := req.Params.Arguments
		if strings.TrimSpace(string(raw)) == "null" { // a client that sends no arguments
			raw = nil
		}
		r := s.turn(req.Session).CallRaw(ctx, name, raw)
		return toResult(r), nil
	}
}

// turn is the session's turn: one per MCP client session, so a scanner finding taints every
// later call of that client (its context holds the flagged text from then on). Its rate limits
// and denial pacing are the session's own (mcp:<name>@<version>#<n>): clients that introduce
// themselves alike still cannot pause or rate-limit each other.
func (s *Server) turn(ss *mcp.ServerSession) *engine.Turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.turns[ss]; ok {
		return t
	}
	s.clients++
	id := AgentID(ss)
	t := s.eng.NewClientTurn(id, fmt.Sprintf("%s#%d", id, s.clients))
	s.turns[ss] = t
	go func() { // a client that goes away takes its turn with it (a long HTTP run would grow)
		ss.Wait()
		s.Forget(ss)
	}()
	return t
}

// Forget drops a closed session's turn.
func (s *Server) Forget(ss *mcp.ServerSession) {
	s.mu.Lock()
	delete(s.turns, ss)
	s.mu.Unlock()
}

// AgentID is the audit identity of an MCP client session: mcp:<name>@<version> from its
// initialize handshake ("unknown" for a part it did not send), restricted to printable
// characters without spaces and bounded in length.
func AgentID(ss *mcp.ServerSession) string {
	name, version := "", ""
	if ss != nil {
		if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
			name, version = p.ClientInfo.Name, p.ClientInfo.Version
		}
	}
	return "mcp:" + clean(name) + "@" + clean(version)
}

func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '@' || r == ':' || unicode.IsSpace(r):
			return '_'
		case !unicode.IsPrint(r):
			return -1
		}
		return r
	}, s)
	if r := []rune(s); len(r) > 64 {
		s = string(r[:64])
	}
	if s == "" {
		return "unknown"
	}
	return s
}

// toResult renders an engine result: the result's JSON as text; a call that did not succeed is
// a tool error whose first text names the reason ("halted: …").
func toResult(r engine.Result) *mcp.CallToolResult {
	text, err := jsonv.MarshalString(r.JSON(), jsonv.Compact)
	if err != nil {
		text = `{"status":"error","reason_code":"tool_error","detail":"the result could not be encoded"}`
		r.Status = engine.StatusError
	}
	if r.OK() {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	}
	why := string(r.Code)
	if why == "" {
		why = string(r.Status)
	}
	if r.Detail != "" {
		why += ": " + r.Detail
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: why}, &mcp.TextContent{Text: text}}}
}
