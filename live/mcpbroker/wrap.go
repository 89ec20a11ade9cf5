package mcpbroker

import (
	"net/url"
	"strings"

	"cockpit/live"
	"cockpit/live/jsonv"
)

// ToolInfo is one tool a server lists.
type ToolInfo struct {
	Name        string
	Description string
	// ReadOnlyHint is the raw annotation: nil when absent, else the JSON value.
	ReadOnlyHint any
	// Schema is the tool's input schema (nil when it sent none).
	Schema *jsonv.Object
}

// Wrapped is how a tool is offered to the agent.
type Wrapped struct {
	Tool  ToolInfo
	Class live.ToolClass
	// Gated tools go through the gate with Broker's mandate, halt and counter; the others
	// run plainly and are read-only.
	Gated  bool
	Broker string
}

// Classes is the curated map a broker's tools are classified with, and whether it is
// authoritative (an unmapped tool is then UNKNOWN, its readOnlyHint ignored).
type Classes struct {
	Tools         map[string]live.ToolClass
	Authoritative bool
}

// Classify decides a tool's class: the map wins; an unmapped tool is UNKNOWN under an
// authoritative map, otherwise the reference rule (live.Classify) applies.
func (c Classes) Classify(tool string, readOnlyHint any) live.ToolClass {
	if _, mapped := c.Tools[tool]; !mapped && c.Authoritative {
		return live.ClassUnknown
	}
	return live.Classify(c.Tools, tool, readOnlyHint)
}

// Curated is how a broker's tools are classified: the profile's map (authoritative when the
// profile says so), else the broker key's curated map (nil: hints only, everything else
// UNKNOWN).
func Curated(p *live.Profile, key string) Classes {
	if p != nil && p.Tools != nil {
		return Classes{Tools: p.Tools, Authoritative: p.ToolsAuthoritative}
	}
	return Classes{Tools: live.CuratedTools(key)}
}

// Wrap classifies tools with the curated map first and readOnlyHint only after, unless the
// map is authoritative (a hint can catch a write the map missed, never demote a mapped one
// nor promote an unmapped one under an authoritative map). READ tools are
// offered plain; WRITE and UNKNOWN tools are gated under broker, and left out entirely when
// the broker is halted at wrap time (reference K5). Order follows tools.
func Wrap(broker string, curated Classes, tools []ToolInfo, halted bool) []Wrapped {
	out := make([]Wrapped, 0, len(tools))
	for _, t := range tools {
		c := curated.Classify(t.Name, t.ReadOnlyHint)
		if !c.IsWrite() {
			out = append(out, Wrapped{Tool: t, Class: c})
			continue
		}
		if halted {
			continue
		}
		out = append(out, Wrapped{Tool: t, Class: c, Gated: true, Broker: broker})
	}
	return out
}

// liveHosts are brokers recognised by their server's URL host (reference K4).
var liveHosts = []string{"robinhood.com", "ibkr.com"}

// BrokerKey is the key a server is traded under: the real broker when its URL's host is (or
// is a subdomain of) a known broker's, else key. A substring is not a match.
func BrokerKey(key, serverURL string) string {
	if serverURL != "" {
		if u, err := url.Parse(serverURL); err == nil {
			host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
			for _, h := range liveHosts {
				if host == h || strings.HasSuffix(host, "."+h) {
					return strings.TrimSuffix(h, ".com")
				}
			}
		}
	}
	return key
}

// ProfileFor is the profile of a broker: the named one, else the broker key's, else the
// generic profile (no tool yields an intent; every write is denied).
func ProfileFor(name, key string) *live.Profile {
	for _, n := range []string{name, key} {
		if p, ok := live.Profiles[strings.ToLower(n)]; ok {
			return p
		}
	}
	return live.GenericMCP
}
