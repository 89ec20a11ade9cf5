package engine

import (
	"context"

	"cockpit/live"
	"cockpit/live/jsonv"
)

// RemoteCaller calls one tool of a tool-shaped broker (an MCP server).
type RemoteCaller interface {
	CallTool(ctx context.Context, name string, args *jsonv.Object) (any, error)
}

// RemoteTool is one of a broker server's tools as the agent is offered it.
type RemoteTool struct {
	Name        string
	Description string
	Schema      *jsonv.Object // the server's input schema; nil = an object with any fields
	// Class is the tool's class as the broker's classification decided it (DV17): only READ
	// runs plain; WRITE, UNKNOWN and an unset class are sent through the gate.
	Class live.ToolClass
}

// RemoteTools registers a broker server's tools: READ ones run through call as reads whose
// every string is scanned as outside content (news, announcements); all others are trade
// tools the engine sends through the gate, which extracts the order with profile (no intent
// → deny) and forwards the agent's arguments verbatim. A name already
// registered keeps its tool; the skipped names are returned.
func RemoteTools(r *Registry, call RemoteCaller, profile *live.Profile, tools []RemoteTool) []string {
	var skipped []string
	for _, rt := range tools {
		if _, taken := r.Get(rt.Name); taken {
			skipped = append(skipped, rt.Name)
			continue
		}
		schema := rt.Schema
		if schema == nil {
			schema = jsonv.ObjectOf("type", "object")
		}
		t := &Tool{Name: rt.Name, Description: rt.Description, InputSchema: schema}
		if rt.Class != live.ClassRead {
			t.Effect, t.Profile = EffectTrade, profile
		} else {
			name := rt.Name
			t.Effect, t.ScanAll = EffectRead, true
			t.Run = func(ctx context.Context, args *jsonv.Object, _ Policy) (any, error) {
				if args == nil {
					args = jsonv.NewObject()
				}
				return remoteRead(ctx, call, name, args)
			}
		}
		r.Add(t)
	}
	return skipped
}

// remoteRead calls a broker server's read tool; a reply that is not a JSON object (a text or
// a list) is wrapped as {"content": reply} so it can be scanned and carry security_warnings.
func remoteRead(ctx context.Context, call RemoteCaller, name string, args *jsonv.Object) (any, error) {
	v, err := call.CallTool(ctx, name, args)
	if err != nil {
		return nil, err
	}
	if o, ok := v.(*jsonv.Object); ok && o != nil {
		return o, nil
	}
	return jsonv.ObjectOf("content", v), nil
}
