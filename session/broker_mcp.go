package session

import (
	"context"
	"fmt"
	"log/slog"

	"cockpit/config"
	"cockpit/engine"
	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/live/mcpbroker"
	"cockpit/live/redact"
	"cockpit/tui"
)

func init() {
	registerBroker(config.KindMCP, openMCP)
}

// openMCP connects to a [brokers.<key>] kind = "mcp" table's server and lists its tools; the
// session closes it (and a stdio server's process) with the runtime.
func openMCP(rt *Runtime, key string, bc config.BrokerConfig) (live.Broker, error) {
	b, err := connectMCP(rt, key, bc)
	if err != nil {
		return nil, err
	}
	rt.closers = append(rt.closers, func() { b.Close() })
	return b, nil
}

// connectMCP starts or reaches the table's server and lists its tools.
func connectMCP(rt *Runtime, key string, bc config.BrokerConfig) (*mcpbroker.Broker, error) {
	m := bc.MCP
	getenv := rt.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	for _, name := range append(append([]string{}, m.EnvPass...), m.TokenEnv) {
		if name != "" {
			redact.RegisterSecret(getenv(name)) // what the server is given is a credential
		}
	}
	ep := mcpbroker.Endpoint{EnvPass: m.EnvPass, URL: m.URL, TokenEnv: m.TokenEnv, Getenv: getenv, Timeout: bc.Timeout.Duration,
		OnExit: func(clean bool, diag string) { logServerExit(rt, key, clean, diag) }}
	if m.Command != "" {
		ep.Command = append([]string{m.Command}, m.Args...)
	}
	profile, err := m.BrokerProfile(key)
	if err != nil {
		return nil, fmt.Errorf("[brokers.%s]: %w", key, err)
	}
	tr, err := ep.Transport()
	if err != nil {
		return nil, err
	}
	return mcpbroker.Connect(context.Background(), tr, mcpbroker.Options{Key: key, Profile: profile,
		Mode: bc.Mode, Timeout: bc.Timeout.Duration, Now: rt.Now, Redial: ep.Transport})
}

// logServerExit notes in cockpit.log how a broker's stdio server ended (a warning unless it
// exited 0), with the redacted end of its stderr.
func logServerExit(rt *Runtime, key string, clean bool, diag string) {
	if rt.Log == nil {
		return
	}
	level := slog.LevelWarn
	if clean {
		level = slog.LevelInfo
	}
	rt.Log.Log(context.Background(), level, "mcp broker server ended", "broker", key, "detail", diag)
}

// registerMCPTools offers an MCP broker's own tools to the agent: READ ones (the profile's
// map or the table's read_tools, never the server's readOnlyHint: DV17) plain, WRITE and
// UNKNOWN ones through the gate, and none of those when the broker is halted now (reference
// K5; a halt after registration is refused by the gate). Names cockpit's own tools use stay
// cockpit's.
func registerMCPTools(rt *Runtime, reg *engine.Registry, b live.Broker, key string) {
	mb, ok := b.(*mcpbroker.Broker)
	if !ok {
		return
	}
	halted := halt.IsHalted(rt.Root, key) || halt.IsGloballyHalted(rt.Root)
	var tools []engine.RemoteTool
	for _, w := range rt.wrapMCP(mb, key, halted) {
		tools = append(tools, engine.RemoteTool{Name: w.Tool.Name, Description: w.Tool.Description, Schema: w.Tool.Schema, Class: w.Class})
	}
	if skipped := engine.RemoteTools(reg, mb, mb.Profile, tools); len(skipped) > 0 && rt.Log != nil {
		rt.Log.Info("mcp broker tools shadowed by cockpit's own", "broker", key, "tools", skipped)
	}
}

// wrapMCP classifies an MCP broker's tools with its profile's map and the [brokers.<key>]
// table's read_tools: the one classification the agent's registry, status and the screen use.
func (rt *Runtime) wrapMCP(mb *mcpbroker.Broker, key string, halted bool) []mcpbroker.Wrapped {
	bc, _ := rt.Config.Broker(key)
	return mcpbroker.Wrap(key, mcpbroker.Curated(mb.Profile, key).WithRead(bc.ReadTools), mb.Tools(), halted)
}

// BrokerTools lists a broker server's own tools with the class they are offered to the agent
// with (READ: called without the gate), in the server's order; nil when b is not an MCP broker.
func (rt *Runtime) BrokerTools(b live.Broker, key string) []tui.BrokerTool {
	mb, ok := b.(*mcpbroker.Broker)
	if !ok {
		return nil
	}
	out := []tui.BrokerTool{}
	for _, w := range rt.wrapMCP(mb, key, false) {
		out = append(out, tui.BrokerTool{Name: w.Tool.Name, Class: w.Class, Hinted: w.Tool.ReadOnlyHint == true})
	}
	return out
}

// mcpBars is the bar source of an MCP broker whose profile reads bars (nil otherwise), so the
// strategy agent can trade through it.
func mcpBars(b live.Broker) engine.BarSource {
	mb, ok := b.(*mcpbroker.Broker)
	if !ok || !mb.HasBars() {
		return nil
	}
	return mb.Bars
}
