package mcpserve

import "slices"

// Clients lists the connected MCP client sessions as the agents they are in the audit
// (mcp:<name>@<version>), sorted: the screen and supervisors show them.
func (s *Server) Clients() []string {
	var out []string
	for ss := range s.mcp.Sessions() {
		out = append(out, AgentID(ss))
	}
	slices.Sort(out)
	return out
}
