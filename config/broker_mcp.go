package config

// MCP holds the fields of a kind = "mcp" broker table.
type MCP struct{}

// validate checks the MCP fields of [field].
func (m MCP) validate(field string) error { return nil }
