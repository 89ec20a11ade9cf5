package config

import (
	"fmt"
	"net"
	"strconv"
)

// Metrics configures the Prometheus endpoint (issue 31 item 1): off without a listen address.
// The process that owns the root serves it at http://LISTEN/metrics.
type Metrics struct {
	Listen      string `toml:"listen"`       // host:port, e.g. "127.0.0.1:9464"; "" = off
	AllowRemote bool   `toml:"allow_remote"` // allow a listen address that is not loopback
}

// Enabled reports whether the endpoint is configured.
func (m Metrics) Enabled() bool { return m.Listen != "" }

// Validate names a bad [metrics] key and its value: the address must be host:port with a
// port, and loopback unless allow_remote (the figures say when the account is halted and how
// close it is to its limits: not for anyone who can reach the port).
func (m Metrics) Validate() error {
	if m.Listen == "" {
		return nil
	}
	host, port, err := net.SplitHostPort(m.Listen)
	if err != nil {
		return fmt.Errorf("config: metrics.listen = %q: %v: want host:port, e.g. \"127.0.0.1:9464\"", m.Listen, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("config: metrics.listen = %q: port %q: want a number from 0 to 65535", m.Listen, port)
	}
	if !m.AllowRemote && !isLoopbackHost(host) {
		return fmt.Errorf("config: metrics.listen = %q is not a loopback address: anyone who reaches it reads the account's state; use 127.0.0.1, or set metrics.allow_remote = true to mean it", m.Listen)
	}
	return nil
}

// TemplateMetrics is the commented [metrics] table of the config template.
const TemplateMetrics = `
# [metrics]                     # Prometheus endpoint, served at http://LISTEN/metrics by the process owning the root
# listen = "127.0.0.1:9464"     # off while unset; loopback unless allow_remote
# allow_remote = false          # true to serve on a non-loopback address (put it behind your own network controls)
`
