package config

import (
	"strings"
	"testing"
)

// TestMetricsListen: [metrics] is off by default; a loopback listen address is taken; any
// other is refused unless allow_remote, and the error names the key and the value.
func TestMetricsListen(t *testing.T) {
	cases := []struct {
		name, toml string
		want       string // "" = accepted; else a part of the error
	}{
		{"default off", "", ""},
		{"loopback v4", "[metrics]\nlisten = \"127.0.0.1:9464\"", ""},
		{"loopback v6", "[metrics]\nlisten = \"[::1]:9464\"", ""},
		{"localhost", "[metrics]\nlisten = \"localhost:9464\"", ""},
		{"port 0", "[metrics]\nlisten = \"127.0.0.1:0\"", ""},
		{"all interfaces", "[metrics]\nlisten = \"0.0.0.0:9464\"", `metrics.listen = "0.0.0.0:9464" is not a loopback address`},
		{"empty host", "[metrics]\nlisten = \":9464\"", `metrics.listen = ":9464" is not a loopback address`},
		{"lan address", "[metrics]\nlisten = \"192.168.1.5:9464\"", "allow_remote = true"},
		{"lan, allowed", "[metrics]\nlisten = \"192.168.1.5:9464\"\nallow_remote = true", ""},
		{"no port", "[metrics]\nlisten = \"127.0.0.1\"", `metrics.listen = "127.0.0.1"`},
		{"bad port", "[metrics]\nlisten = \"127.0.0.1:99999\"", `port "99999"`},
		{"unknown key", "[metrics]\nlisten = \"127.0.0.1:9464\"\nport = 1", "unknown key metrics.port"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Parse([]byte(c.toml), Default())
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("Parse: %v, want accepted", err)
			case c.want != "" && err == nil:
				t.Fatalf("Parse accepted %+v, want an error with %q", cfg.Metrics, c.want)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Fatalf("error %q, want it to say %q", err, c.want)
			}
		})
	}
	if Default().Metrics.Enabled() {
		t.Error("metrics are on by default")
	}
}

// TestTemplateMetricsParses: the template's [metrics] lines, uncommented, are a valid table.
func TestTemplateMetricsParses(t *testing.T) {
	var lines []string
	for _, l := range strings.Split(TemplateMetrics, "\n") {
		lines = append(lines, strings.TrimPrefix(l, "# "))
	}
	cfg, err := Parse([]byte(strings.Join(lines, "\n")), Default())
	if err != nil {
		t.Fatalf("uncommented template: %v", err)
	}
	if got, want := cfg.Metrics.Listen, "127.0.0.1:9464"; got != want {
		t.Errorf("listen = %q, want %q", got, want)
	}
}
