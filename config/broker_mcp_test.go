package config

import (
	"strings"
	"testing"
)

func TestMCPBrokerTables(t *testing.T) {
	head := "[cockpit]\nbroker = \"rh\"\n[brokers.rh]\nkind = \"mcp\"\nmode = \"paper\"\n"
	tests := []struct {
		name, toml, wantErr string
	}{
		{"command", `command = "rh-mcp"
args = ["--stdio"]
env_pass = ["RH_TOKEN"]
profile = "robinhood"`, ""},
		{"https url with a token", `url = "https://mcp.example.com/mcp"
token_env = "RH_TOKEN"
profile = "alpaca"`, ""},
		{"http on loopback", `url = "http://127.0.0.1:8000/mcp"`, ""},
		{"neither", `profile = "alpaca"`, "exactly one of command and url"},
		{"both", "command = \"x\"\nurl = \"https://h/mcp\"", "exactly one of command and url"},
		{"plain http off loopback", `url = "http://mcp.example.com/mcp"`, "want https"},
		{"token with a command", "command = \"x\"\ntoken_env = \"T\"", "token_env"},
		{"bad variable name", "command = \"x\"\nenv_pass = [\"A=B\"]", "not an environment variable name"},
		{"unknown profile", "command = \"x\"\nprofile = \"ibkr\"", `profile = "ibkr": want one of alpaca, robinhood`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(head+tt.toml), Default())
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Parse: got %v, want no error", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Parse: got %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestMCPTemplateIsValid(t *testing.T) {
	cfg, err := Parse([]byte(Template+TemplateMCP), Default())
	if err != nil {
		t.Fatalf("Template + TemplateMCP: %v", err)
	}
	b, ok := cfg.Broker("mcp")
	if !ok || b.Kind != KindMCP || b.Live() || b.Profile != "alpaca" || b.Command != "cockpit" {
		t.Fatalf("[brokers.mcp]: got %+v", b)
	}
	selected := strings.Replace(Template, `broker = "paper"`, `broker = "mcp"`, 1) + TemplateMCP
	if _, err := Parse([]byte(selected), Default()); err != nil {
		t.Fatalf("with broker = \"mcp\": %v", err)
	}
}
