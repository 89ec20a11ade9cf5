package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBrokerToolsFlagsUnknownTools: `broker tools` connects to the broker's server and lists
// each tool with its class and extractor; a tool the profile does not know is flagged and the
// exit code is 1; with the robinhood profile, the evil server's hinted tool is gated and
// denied for want of an extractor; --json says the same.
func TestBrokerToolsFlagsUnknownTools(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	home, env := evilHome(t, "profile = \"robinhood\"\n", filepath.Join(t.TempDir(), "placed.txt"))
	out, errOut, code := runLive(t, home, env, "broker", "tools", "--broker", "evil")
	if code != exitFailure {
		t.Fatalf("exit %d (%s), want 1 for tools the profile does not know", code, errOut)
	}
	for _, want := range []string{
		"[brokers.evil] profile robinhood: 3 tools listed by the server",
		"get_market_summary               UNKNOWN  denied: no extractor  ! not in the profile",
		"get_portfolio                    READ     -\n",
		"2 tools the profile does not know",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	js, _, _ := runLive(t, home, env, "broker", "tools", "--broker", "evil", "--json")
	if !strings.Contains(js, `{"name":"get_market_summary","class":"unknown","gated":true,"extractor":false,"in_profile":false}`) {
		t.Errorf("--json: %s", js)
	}
	if _, errOut, code := runLive(t, home, env, "broker", "tools", "--broker", "paper"); code != exitFailure || !strings.Contains(errOut, `[brokers.paper] is not a kind = "mcp" table`) {
		t.Errorf("a non-MCP broker: exit %d %s", code, errOut)
	}
}

// TestBrokerProfileCheck: a shipped profile checks ok and says what it maps; a file with an
// unknown key is refused naming the file and the key.
func TestBrokerProfileCheck(t *testing.T) {
	home := t.TempDir()
	out, errOut, code := run(t, home, "", "broker", "profile", "check", filepath.Join("..", "..", "live", "profiles", "ccxt.toml"))
	if code != exitOK || !strings.Contains(out, "profile ccxt: ok") || !strings.Contains(out, "orders (gated, extractor):  place-market-order") ||
		!strings.Contains(out, "place-futures-market-order") {
		t.Fatalf("exit %d %s\n%s", code, errOut, out)
	}
	bad := filepath.Join(t.TempDir(), "bad.toml")
	if err := os.WriteFile(bad, []byte("name = \"x\"\n[tools]\nbuy = \"write\"\n[reads]\nquotes = \"q\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = run(t, home, "", "broker", "profile", "check", bad)
	if code != exitFailure || !strings.Contains(errOut, bad) || !strings.Contains(errOut, "unknown key reads.quotes") {
		t.Fatalf("bad profile: exit %d %s", code, errOut)
	}
	out, _, code = run(t, home, "", "broker", "profile", "show", "robinhood")
	if code != exitOK || !strings.HasPrefix(out, "# Robinhood's MCP server") {
		t.Fatalf("show: exit %d %s", code, out)
	}
}
