package config

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"
)

// Fleet joins this host to a fleet on NATS JetStream (issue 16): one kill switch and one day
// count across hosts. Off while url is empty.
type Fleet struct {
	URL      string `toml:"url"`       // nats://host:4222 or tls://…; a cluster: comma-separated
	Creds    string `toml:"creds"`     // this host's NATS credentials file (fleet add-host); "" = <root>/fleet.creds when it exists
	TokenEnv string `toml:"token_env"` // a token read from this environment variable (a server of the operator's own)
	CA       string `toml:"ca"`        // TLS: CA file, client certificate and key
	Cert     string `toml:"cert"`
	Key      string `toml:"key"`
	Host     string `toml:"host"`     // this host's name in the fleet; "" = its credentials', else the hostname
	Replicas int    `toml:"replicas"` // replicas of the buckets and stream (1, 3 or 5; 0 = 1)
	Listen   string `toml:"listen"`   // `cockpit fleet serve` address; "" = 127.0.0.1:4222
	// The fleet's audit stream (a mirror of each host's trail) drops records older than
	// AuditMaxAge and the oldest past AuditMaxBytes; 0 = 90 days and 1 GiB.
	AuditMaxAge   Duration `toml:"audit_max_age"`
	AuditMaxBytes int64    `toml:"audit_max_bytes"`
}

// Enabled reports whether a fleet is configured.
func (f Fleet) Enabled() bool { return f.URL != "" }

// HostName is the configured host name, else the machine's hostname made a valid token.
func (f Fleet) HostName() string {
	if f.Host != "" {
		return f.Host
	}
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "cockpit"
	}
	return strings.Map(func(r rune) rune {
		if validHostRune(r) {
			return r
		}
		return '-'
	}, h)
}

func validHostRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_'
}

// ListenAddr is where `cockpit fleet serve` listens.
func (f Fleet) ListenAddr() string {
	if f.Listen == "" {
		return "127.0.0.1:4222"
	}
	return f.Listen
}

// Validate names the first bad [fleet] field and its value.
func (f Fleet) Validate() error {
	bad := func(key string, value any, want string) error {
		return fmt.Errorf("config: fleet.%s = %v: %s", key, value, want)
	}
	for _, u := range strings.Split(f.URL, ",") {
		if f.URL == "" {
			break
		}
		p, err := url.Parse(strings.TrimSpace(u))
		if err != nil || (p.Scheme != "nats" && p.Scheme != "tls") || p.Host == "" || p.User != nil {
			return bad("url", fmt.Sprintf("%q", f.URL), "want nats://host:port or tls://host:port (comma-separated for a cluster; credentials go in creds or token_env, never in the url)")
		}
	}
	if f.Creds != "" && f.TokenEnv != "" {
		return bad("token_env", fmt.Sprintf("%q", f.TokenEnv), "set creds or token_env, not both")
	}
	if (f.Cert == "") != (f.Key == "") {
		return bad("cert", fmt.Sprintf("%q", f.Cert), "cert and key go together")
	}
	for _, r := range f.Host {
		if !validHostRune(r) {
			return bad("host", fmt.Sprintf("%q", f.Host), "letters, digits, - and _ only")
		}
	}
	switch f.Replicas {
	case 0, 1, 3, 5:
	default:
		return bad("replicas", f.Replicas, "want 1, 3 or 5")
	}
	if f.Listen != "" {
		if _, port, err := net.SplitHostPort(f.Listen); err != nil || port == "" {
			return bad("listen", fmt.Sprintf("%q", f.Listen), "want host:port, e.g. 127.0.0.1:4222")
		}
	}
	if age := f.AuditMaxAge.Duration; age < 0 || (age > 0 && age < time.Hour) {
		return bad("audit_max_age", age, "want at least 1h (0: 90 days)")
	}
	if n := f.AuditMaxBytes; n < 0 || (n > 0 && n < 1<<20) {
		return bad("audit_max_bytes", n, "want at least 1048576 bytes, 1 MiB (0: 1 GiB)")
	}
	if !f.Enabled() && (f.Creds != "" || f.TokenEnv != "" || f.CA != "" || f.Cert != "" || f.Host != "") {
		return bad("url", `""`, "the fleet is off without a url, but its other settings are set")
	}
	return nil
}

// TemplateFleet is the commented [fleet] section of the config template.
const TemplateFleet = `
# A fleet: one kill switch and one day count across hosts, on NATS JetStream (README
# "Run a fleet"). Off without a url. ` + "`cockpit fleet serve`" + ` starts a one-host server.
# [fleet]
# url = "nats://127.0.0.1:4222"   # tls://… for TLS; comma-separated for a cluster
# creds = ""                      # this host's credentials (fleet add-host); default <root>/fleet.creds
# token_env = ""                  # a token, for a NATS server of your own (fleet serve takes creds only)
# ca = ""                         # TLS: CA file; cert and key for a client certificate
# host = ""                       # unique per root; empty = the credentials' name, else the hostname
# replicas = 1                    # 3 on a 3-node cluster
# listen = "127.0.0.1:4222"       # where ` + "`cockpit fleet serve`" + ` listens (off loopback: --allow-remote and TLS)
# audit_max_age = "2160h"         # the fleet's audit stream drops records older than this (90 days)
# audit_max_bytes = 1073741824    # and the oldest past this size (1 GiB); each host's own trail keeps all
`
