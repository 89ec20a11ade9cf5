package tui

import (
	"fmt"
	"strings"
)

// brokerToolLines lists the broker server's own tools for the palette's tools: those the agent
// calls without the gate, then those that go through it with their class (DV17). A snapshot
// without a list (a broker that is no MCP server, or a supervisor's, SSH or attached screen
// fed from elsewhere) says so.
func brokerToolLines(c *Common) []string {
	s := c.Data.Snap
	if s.Tools == nil {
		return []string{"No server tools to list: " + s.Broker + " is not an MCP broker (the agent has",
			"cockpit's own tools only), or this screen watches another process",
			"(`cockpit status` lists an MCP broker's tools and their class)."}
	}
	var read, gated []string
	for _, t := range s.Tools {
		name := untrusted(t.Name, 40)
		if !t.Class.IsWrite() {
			read = append(read, "  "+name)
			continue
		}
		line := fmt.Sprintf("  %-26s %s", name, strings.ToUpper(string(t.Class)))
		if t.Hinted {
			line += " · hint: read-only (not trusted)"
		}
		gated = append(gated, line)
	}
	lines := []string{fmt.Sprintf("%s: the server's own tools, as the agent is offered them.", s.Broker), "",
		fmt.Sprintf("READ, called without the gate (%d):", len(read))}
	lines = append(lines, orNoneLine(read)...)
	lines = append(lines, "", fmt.Sprintf("Through the gate: mandate, halt, count, audit (%d):", len(gated)))
	lines = append(lines, orNoneLine(gated)...)
	return append(lines, "", "A server's readOnlyHint is not a permission: read_tools under",
		"[brokers."+s.Broker+"] names the tools the agent may call ungated.")
}

func orNoneLine(lines []string) []string {
	if len(lines) == 0 {
		return []string{"  none"}
	}
	return lines
}
