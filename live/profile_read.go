package live

import (
	"fmt"
	"regexp"
	"strings"
)

// ProfileFor is the profile a broker server is read with: the one named, else the broker
// key's, else GenericMCP (no tool yields an intent; every write is denied). Names are
// case-insensitive.
func ProfileFor(name, key string) *Profile {
	for _, n := range []string{name, key} {
		if p, ok := Profiles()[strings.ToLower(n)]; ok {
			return p
		}
	}
	return GenericMCP
}

// ToolMap is the curated map a broker server's tools are classified with under p: the
// profile's own, else the broker key's (nil when neither has one).
func (p *Profile) ToolMap(key string) map[string]ToolClass {
	if p != nil && p.Tools != nil {
		return p.Tools
	}
	return CuratedTools(key)
}

// toolName is a tool name an operator may list: 1 to 128 letters, digits, _, - and . (the
// characters the MCP specification gives tool names).
var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// CheckReadTools checks an operator's read_tools for a broker server read with p under key
// (DV17): each is a tool name, listed once, and none is a tool the curated map names WRITE or
// the profile's order or cancel tool — those always go through the gate.
func CheckReadTools(p *Profile, key string, names []string) error {
	if p == nil {
		p = GenericMCP
	}
	m, src := p.ToolMap(key), "the "+p.Name+" profile"
	if p.Tools == nil {
		src = "the " + key + " broker's curated map"
	}
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		c, mapped := m[n]
		switch {
		case !toolName.MatchString(n):
			return fmt.Errorf("%q is not a tool name (1 to 128 letters, digits, _, - or .)", n)
		case seen[n]:
			return fmt.Errorf("%q is listed twice", n)
		case mapped && c.IsWrite():
			return fmt.Errorf("%q is a %s tool of %s: it always goes through the gate; remove it", n, c, src)
		case n == p.PlaceTool || n == p.CancelTool:
			return fmt.Errorf("%q is the %s profile's order tool: it always goes through the gate; remove it", n, p.Name)
		}
		seen[n] = true
	}
	return nil
}
