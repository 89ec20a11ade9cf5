package config

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"cockpit/live"
)

// MCP holds the fields of a kind = "mcp" broker table: where the broker's MCP server is
// (a command started over stdio, or a streamable HTTP url) and which profile reads its tools.
type MCP struct {
	Command  string   `toml:"command"`   // program that serves MCP on stdio
	Args     []string `toml:"args"`      // its arguments
	URL      string   `toml:"url"`       // streamable HTTP endpoint (https, or http on loopback)
	Profile  string   `toml:"profile"`   // robinhood | alpaca; default: the broker key's
	EnvPass  []string `toml:"env_pass"`  // variables passed to the command, by name; nothing else is
	TokenEnv string   `toml:"token_env"` // variable holding the HTTP bearer token
	// ReadTools are tools of the server the operator says only read: the agent calls them
	// without the gate. The server's readOnlyHint never does that (DV17); a tool the profile
	// names WRITE, or its order or cancel tool, cannot be listed.
	ReadTools []string `toml:"read_tools"`
}

// validate checks the MCP fields of [field], the table of broker key.
func (m MCP) validate(field, key string) error {
	if (m.Command == "") == (m.URL == "") {
		return fmt.Errorf("config: [%s]: an mcp broker needs exactly one of command and url", field)
	}
	if m.URL != "" {
		u, err := url.Parse(m.URL)
		if err != nil || u.Host == "" {
			return fmt.Errorf("config: %s.url = %q: not a URL", field, m.URL)
		}
		if u.Scheme != "https" && !(u.Scheme == "http" && isLoopbackHost(u.Hostname())) {
			return fmt.Errorf("config: %s.url = %q: want https (plain http only on loopback)", field, m.URL)
		}
		if len(m.Args) > 0 || len(m.EnvPass) > 0 {
			return fmt.Errorf("config: [%s]: args and env_pass go with command, not url", field)
		}
	} else if m.TokenEnv != "" {
		return fmt.Errorf("config: %s.token_env: a bearer token goes with url, not command", field)
	}
	for _, n := range append(append([]string{}, m.EnvPass...), m.TokenEnv) {
		if n != "" && !envName.MatchString(n) {
			return fmt.Errorf("config: [%s]: %q is not an environment variable name", field, n)
		}
	}
	if m.Profile != "" {
		if _, ok := live.Profiles[m.Profile]; !ok {
			names := make([]string, 0, len(live.Profiles))
			for n := range live.Profiles {
				names = append(names, n)
			}
			sort.Strings(names)
			return fmt.Errorf("config: %s.profile = %q: want one of %s", field, m.Profile, strings.Join(names, ", "))
		}
	}
	if err := live.CheckReadTools(live.ProfileFor(m.Profile, key), key, m.ReadTools); err != nil {
		return fmt.Errorf("config: %s.read_tools: %v", field, err)
	}
	return nil
}
