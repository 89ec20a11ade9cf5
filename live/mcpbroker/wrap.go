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

// Classes is how a broker server's tools are classified (DV17): the curated map, whether it is
// authoritative (an unmapped tool is then UNKNOWN unless the operator lists it), and the
// operator's read_tools. The server's readOnlyHint never makes a tool READ.
type Classes struct {
	Tools         map[string]live.ToolClass
	Authoritative bool
	Read          map[string]bool // the broker table's read_tools
}

// Classify decides a tool's class with live.ClassifyBrokerTool; under an authoritative map
// an unmapped tool the operator does not list is UNKNOWN whatever its hint.
func (c Classes) Classify(tool string, readOnlyHint any) live.ToolClass {
	if _, mapped := c.Tools[tool]; !mapped && c.Authoritative && !c.Read[tool] {
		return live.ClassUnknown
	}
	return live.ClassifyBrokerTool(c.Tools, c.Read, tool, readOnlyHint)
}

// WithRead is c with the operator's read_tools (checked by live.CheckReadTools at config
// load; a name the map names WRITE stays WRITE here too).
func (c Classes) WithRead(names []string) Classes {
	c.Read = make(map[string]bool, len(names))
	for _, n := range names {
		c.Read[n] = true
	}
	return c
}

// Curated is how a broker's tools are classified: the profile's map (authoritative when the
// profile says so), else the broker key's curated map (nil: only the operator's read_tools
// are READ, everything else is gated).
func Curated(p *live.Profile, key string) Classes {
	c := Classes{Tools: p.ToolMap(key)}
	if p != nil && p.Tools != nil {
		c.Authoritative = p.ToolsAuthoritative
	}
	return c
}

// Wrap offers a broker server's tools to the agent (DV17): READ tools (the curated map's or
// the operator's) plain; every other tool, whatever its readOnlyHint, gated under broker, and
// left out entirely when the broker is halted at wrap time (reference K5). Order follows tools.
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

// ProfileFor is the profile of a broker: live.ProfileFor.
func ProfileFor(name, key string) *live.Profile { return live.ProfileFor(name, key) }
