package config

import (
	"fmt"
	"net"
	"sort"
	"strings"

	"cockpit/live"
)

// Broker kinds a [brokers.<key>] table can name.
const (
	KindAlpaca = "alpaca" // Alpaca through its official SDK
	KindMCP    = "mcp"    // any broker's MCP server, through a profile
)

// Broker modes.
const (
	ModePaper = "paper"
	ModeLive  = "live"
)

// BrokerConfig is one [brokers.<key>] table: a real broker the cockpit trades through. The
// fields of each kind live in their own struct (Alpaca, MCP) and are flattened into the table.
type BrokerConfig struct {
	Kind    string   `toml:"kind"`    // alpaca | mcp
	Mode    string   `toml:"mode"`    // paper (default) | live; live also needs the run's --live flag
	Timeout Duration `toml:"timeout"` // per request to the broker; 0 = the connector's default
	Alpaca
	MCP
}

// Live reports whether the table asks for real money.
func (b BrokerConfig) Live() bool { return b.Mode == ModeLive }

// Broker returns the [brokers.<key>] table of a normalised key; ok is false when none exists.
func (c Config) Broker(key string) (BrokerConfig, bool) {
	b, ok := c.Brokers[key]
	return b, ok
}

// validateBrokers checks the selected broker has a table and every table names its kind and
// mode; the first bad field is named with its value.
func (c Config) validateBrokers() error {
	keys := make([]string, 0, len(c.Brokers))
	for k := range c.Brokers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b := c.Brokers[k]
		field := "brokers." + k
		if n, err := live.NormalizeBroker(k); err != nil || n != k {
			return fmt.Errorf("config: [%s]: a broker key is lower case, without spaces or slashes", field)
		}
		if live.IsPaperBroker(k) {
			return fmt.Errorf("config: [%s]: %q is the embedded paper broker; configure it under [paper]", field, k)
		}
		switch b.Kind {
		case KindAlpaca, KindMCP:
		default:
			return fmt.Errorf("config: %s.kind = %q: want %s or %s", field, b.Kind, KindAlpaca, KindMCP)
		}
		switch b.Mode {
		case ModePaper, ModeLive:
		default:
			return fmt.Errorf("config: %s.mode = %q: want paper or live", field, b.Mode)
		}
		if b.Timeout.Duration < 0 {
			return fmt.Errorf("config: %s.timeout = %s: must not be negative", field, b.Timeout.Duration)
		}
		if err := b.validateKind(field, k); err != nil {
			return err
		}
	}
	key, _ := live.NormalizeBroker(c.Cockpit.Broker)
	if _, ok := c.Brokers[key]; !ok && !live.IsPaperBroker(key) {
		return fmt.Errorf("config: cockpit.broker = %q: no [brokers.%s] table (configured: %s)", c.Cockpit.Broker, key, strings.Join(append([]string{live.PaperBroker}, keys...), ", "))
	}
	return nil
}

// validateKind checks the fields of the table's kind (key is the broker key).
func (b BrokerConfig) validateKind(field, key string) error {
	switch b.Kind {
	case KindAlpaca:
		if len(b.ReadTools) > 0 {
			return fmt.Errorf("config: %s.read_tools: read_tools goes with kind = %q (an Alpaca table has no server tools); remove it", field, KindMCP)
		}
		return b.Alpaca.validate(field, b.Mode)
	case KindMCP:
		return b.MCP.validate(field, key)
	}
	return nil
}

// isLoopbackHost reports a URL host name that stays on this machine: localhost or a loopback
// address (where a broker's local fake may speak plain http).
func isLoopbackHost(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

// sortedBrokerKeys are the broker tables' keys in order.
func sortedBrokerKeys(m map[string]BrokerConfig) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
