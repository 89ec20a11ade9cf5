package config

import (
	"strings"
	"testing"
)

func TestFleetValidate(t *testing.T) {
	cases := []struct {
		name, toml, want string // want: "" = valid, else a fragment of the error
	}{
		{"off", "", ""},
		{"one host", `url = "nats://127.0.0.1:4222"`, ""},
		{"cluster tls", `url = "tls://a:4222,tls://b:4222"` + "\nreplicas = 3\nca = \"ca.pem\"\ncert = \"c.pem\"\nkey = \"k.pem\"", ""},
		{"bad scheme", `url = "http://x:4222"`, `fleet.url = "http://x:4222"`},
		{"user in url", `url = "nats://u:p@x:4222"`, "fleet.url"},
		{"creds and token", `url = "nats://x:1"` + "\ncreds = \"a\"\ntoken_env = \"T\"", `fleet.token_env = "T"`},
		{"cert without key", `url = "nats://x:1"` + "\ncert = \"c\"", `fleet.cert = "c"`},
		{"bad host", `url = "nats://x:1"` + "\nhost = \"a b\"", `fleet.host = "a b"`},
		{"replicas", `url = "nats://x:1"` + "\nreplicas = 2", "fleet.replicas = 2"},
		{"listen", `listen = "4222"`, `fleet.listen = "4222"`},
		{"settings without url", `host = "h1"`, `fleet.url = ""`},
		{"audit retention", `url = "nats://x:1"` + "\naudit_max_age = \"720h\"\naudit_max_bytes = 268435456", ""},
		{"audit age too short", `url = "nats://x:1"` + "\naudit_max_age = \"10m\"", "fleet.audit_max_age = 10m0s"},
		{"audit age negative", `url = "nats://x:1"` + "\naudit_max_age = \"-1h\"", "fleet.audit_max_age = -1h0m0s"},
		{"audit bytes too small", `url = "nats://x:1"` + "\naudit_max_bytes = 1000", "fleet.audit_max_bytes = 1000"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte("[fleet]\n"+c.toml+"\n"), Default())
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("got %v, want valid", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("got %v, want an error naming %s", err, c.want)
			}
		})
	}
}

func TestFleetTemplateParses(t *testing.T) {
	uncommented := strings.NewReplacer("# [fleet]", "[fleet]", "# url", "url", "# replicas", "replicas", "# host = \"\"", "host = \"h\"").Replace(TemplateFleet)
	cfg, err := Parse([]byte(uncommented), Default())
	if err != nil || !cfg.Fleet.Enabled() || cfg.Fleet.HostName() != "h" {
		t.Fatalf("template uncommented: %+v, %v", cfg.Fleet, err)
	}
}
