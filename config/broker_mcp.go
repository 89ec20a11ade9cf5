package config

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"cockpit/internal/strictmode"
	"cockpit/live"
)

// MCP holds the fields of a kind = "mcp" broker table: where the broker's MCP server is
// (a command started over stdio, or a streamable HTTP url) and which profile reads its tools.
type MCP struct {
	Command string   `toml:"command"` // program that serves MCP on stdio
	Args    []string `toml:"args"`    // its arguments
	URL     string   `toml:"url"`     // streamable HTTP endpoint (https, or http on loopback)
	Profile string   `toml:"profile"` // a shipped profile (cockpit broker profile list); default: the broker key's
	// ProfileFile is a profile file of the operator's (absolute path; held to the config's
	// owner and mode rules), instead of a shipped profile.
	ProfileFile string `toml:"profile_file"`
	// ProfileVars are the values the profile's vars take (an account id, …).
	ProfileVars map[string]string `toml:"profile_vars"`
	EnvPass     []string          `toml:"env_pass"`  // variables passed to the command, by name; nothing else is
	TokenEnv    string            `toml:"token_env"` // variable holding the HTTP bearer token
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
	if m.ProfileFile != "" {
		if m.Profile != "" {
			return fmt.Errorf("config: [%s]: give profile or profile_file, not both", field)
		}
		if !filepath.IsAbs(m.ProfileFile) {
			return fmt.Errorf("config: %s.profile_file = %q: want an absolute path", field, m.ProfileFile)
		}
		return nil // read and checked with the file (MCP.BrokerProfile, at Load)
	}
	if m.Profile != "" {
		if _, ok := live.Profiles()[m.Profile]; !ok {
			return fmt.Errorf("config: %s.profile = %q: want one of %s, or profile_file", field, m.Profile, strings.Join(live.ProfileNames(), ", "))
		}
	}
	b, err := live.ProfileFor(m.Profile, key).Bind(key, m.ProfileVars)
	if err != nil {
		return fmt.Errorf("config: [%s]: %v", field, err)
	}
	if err := live.CheckReadTools(b, key, m.ReadTools); err != nil {
		return fmt.Errorf("config: %s.read_tools: %v", field, err)
	}
	return nil
}

// bind binds p to the table (its key and profile_vars) and checks read_tools against it.
func (m MCP) bind(p *live.Profile, key string) (*live.Profile, error) {
	b, err := p.Bind(key, m.ProfileVars)
	if err != nil {
		return nil, err
	}
	if err := live.CheckReadTools(b, key, m.ReadTools); err != nil {
		return nil, fmt.Errorf("read_tools: %v", err)
	}
	return b, nil
}

// BrokerProfile is the profile the table's server is read with, bound to key: the file
// profile_file names (refused unless only its owner may write it and its folders, like
// config.toml), else the shipped profile (ProfileFor). Errors name the file or field.
func (m MCP) BrokerProfile(key string) (*live.Profile, error) {
	if m.ProfileFile == "" {
		return m.bind(live.ProfileFor(m.Profile, key), key)
	}
	p, err := ReadProfileFile(m.ProfileFile)
	if err != nil {
		return nil, err
	}
	b, err := m.bind(p, key)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", m.ProfileFile, err)
	}
	return b, nil
}

// ReadProfileFile reads and checks a profile file: its owner and mode first (strictmode),
// then its text (live.ParseProfile). Errors name the file.
func ReadProfileFile(path string) (*live.Profile, error) {
	if err := strictmode.File(path); err != nil {
		return nil, fmt.Errorf("profile file %s: %w", path, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("profile file: %w", err)
	}
	p, err := live.ParseProfile(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}
