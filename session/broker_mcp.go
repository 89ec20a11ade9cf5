package session

import (
	"context"

	"cockpit/config"
	"cockpit/engine"
	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/live/mcpbroker"
	"cockpit/live/redact"
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
	ep := mcpbroker.Endpoint{EnvPass: m.EnvPass, URL: m.URL, TokenEnv: m.TokenEnv, Getenv: getenv, Timeout: bc.Timeout.Duration}
	if m.Command != "" {
		ep.Command = append([]string{m.Command}, m.Args...)
	}
	tr, err := ep.Transport()
	if err != nil {
		return nil, err
	}
	return mcpbroker.Connect(context.Background(), tr, mcpbroker.Options{Key: key, Profile: mcpbroker.ProfileFor(m.Profile, key),
		Mode: bc.Mode, Timeout: bc.Timeout.Duration, Now: rt.Now})
}

// registerMCPTools offers an MCP broker's own tools to the agent: READ ones plain, WRITE and
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
	for _, w := range mcpbroker.Wrap(key, mcpbroker.Curated(mb.Profile, key), mb.Tools(), halted) {
		tools = append(tools, engine.RemoteTool{Name: w.Tool.Name, Description: w.Tool.Description, Schema: w.Tool.Schema, Class: w.Class})
	}
	if skipped := engine.RemoteTools(reg, mb, mb.Profile, tools); len(skipped) > 0 && rt.Log != nil {
		rt.Log.Info("mcp broker tools shadowed by cockpit's own", "broker", key, "tools", skipped)
	}
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
