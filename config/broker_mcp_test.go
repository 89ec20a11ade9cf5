package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cockpit/live"
	"cockpit/live/jsonv"
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
		{"unknown profile", "command = \"x\"\nprofile = \"ibkr\"", `profile = "ibkr": want one of alpaca, ccxt, ibkr-mcp, robinhood, or profile_file`},
		{"read_tools", "command = \"x\"\nprofile = \"robinhood\"\nread_tools = [\"get_market_summary\", \"get_news\"]", ""},
		{"read_tools naming an order tool", "command = \"x\"\nprofile = \"robinhood\"\nread_tools = [\"place_equity_order\"]",
			`brokers.rh.read_tools: "place_equity_order" is a write tool of the robinhood profile: it always goes through the gate; remove it`},
		{"read_tools naming the generic order tool", "command = \"x\"\nread_tools = [\"place_order\"]", `brokers.rh.read_tools: "place_order" is the generic profile's order tool`},
		{"read_tools with a bad name", "command = \"x\"\nread_tools = [\"get news\"]", `brokers.rh.read_tools: "get news" is not a tool name`},
		{"read_tools twice", "command = \"x\"\nread_tools = [\"a\", \"a\"]", `brokers.rh.read_tools: "a" is listed twice`},
		{"read_tools not a list", "command = \"x\"\nread_tools = \"get_news\"", "read_tools"},
		{"a typo of read_tools", "command = \"x\"\nread_tool = [\"get_news\"]", "read_tool"},
		{"ibkr-mcp with its account", "command = \"x\"\nprofile = \"ibkr-mcp\"\nprofile_vars = { account = \"U1\" }", ""},
		{"ibkr-mcp without its account", "command = \"x\"\nprofile = \"ibkr-mcp\"", "the ibkr-mcp profile needs profile_vars.account"},
		{"a var the profile does not take", "command = \"x\"\nprofile = \"ccxt\"\nprofile_vars = { account = \"U1\" }", "profile_vars.account: the ccxt profile takes no such variable"},
		{"profile and profile_file", "command = \"x\"\nprofile = \"ccxt\"\nprofile_file = \"/p.toml\"", "give profile or profile_file, not both"},
		{"relative profile_file", "command = \"x\"\nprofile_file = \"p.toml\"", `profile_file = "p.toml": want an absolute path`},
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

// TestReadToolsOnlyForMCP: an Alpaca table has no server tools to list.
func TestReadToolsOnlyForMCP(t *testing.T) {
	_, err := Parse([]byte("[cockpit]\nbroker = \"a\"\n[brokers.a]\nkind = \"alpaca\"\nmode = \"paper\"\nread_tools = [\"get_news\"]\n"), Default())
	if err == nil || !strings.Contains(err.Error(), `brokers.a.read_tools: read_tools goes with kind = "mcp"`) {
		t.Fatalf("Parse: got %v, want the read_tools refusal", err)
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

// TestProfileFileIsReadAtLoad: Load reads a table's profile_file (refusing one others may
// write, or one with an unknown key, naming the file and the key) and BrokerProfile binds it.
func TestProfileFileIsReadAtLoad(t *testing.T) {
	const profile = "name = \"mine\"\n[tools]\nget_q = \"read\"\nbuy = \"write\"\n[reads]\nquote = \"get_q\"\n" +
		"[orders]\nplace = \"buy\"\n[extract.buy]\ninstrument = { value = \"equity\" }\nsymbol = { from = [\"s\"] }\n" +
		"side = { from = [\"d\"] }\nquantity = { from = [\"q\"] }\nreject = [{ path = \"venue\", not_in = [\"${broker}\"] }]\n"
	for _, tt := range []struct {
		name, text string
		mode       os.FileMode
		wantErr    string
	}{
		{"ok", profile, 0o600, ""},
		{"group-writable", profile, 0o660, "its group can write it"},
		{"unknown key", profile + "[reads.extra]\n", 0o600, "unknown key reads.extra"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Chmod(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			root, err := live.NewRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			pf := filepath.Join(dir, "mine.toml")
			if err := os.WriteFile(pf, []byte(tt.text), tt.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(pf, tt.mode); err != nil {
				t.Fatal(err)
			}
			cfg := "[cockpit]\nbroker = \"mine\"\n[brokers.mine]\nkind = \"mcp\"\nmode = \"paper\"\ncommand = \"x\"\nprofile_file = \"" + pf + "\"\n"
			if err := os.WriteFile(Path(root), []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			c, err := Load(root)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "mine") {
					t.Fatalf("Load: got %v, want an error naming the file and %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p, err := c.Brokers["mine"].BrokerProfile("mine")
			if err != nil {
				t.Fatal(err)
			}
			for venue, want := range map[string]bool{"mine": true, "other": false} {
				args := jsonv.ObjectOf("s", "AAPL", "d", "buy", "q", jsonv.Number("1"), "venue", venue)
				if _, ok := p.Extract("buy", args); ok != want {
					t.Errorf("venue %s: extracted %v, want %v", venue, ok, want)
				}
			}
		})
	}
}
