package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cockpit/live/livetest"
	"cockpit/store"
)

// TestRunAgainstMCPPaperServer is issue 13's MCP acceptance: a headless run whose broker is
// an MCP server started as a real child process (this binary's hidden mcp-paper-server verb,
// Alpaca's tool names). The scripted agent reads through the server's own READ tool, places
// orders through its WRITE tool (gated) and through cockpit's place_order (built into the
// server's order tool); an oversize order is reviewed; a HALT makes the next order fail
// halted and its flatten closes the book through the server's reads; the audit shows it all.
func TestRunAgainstMCPPaperServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	home, env := mcpPaperHome(t, "[agents.replay]\nspeed = 1.0", `timeout = "20s"`)
	script := filepath.Join(t.TempDir(), "orders.jsonl")
	steps := []string{
		`{"t": 0, "tool": "get_stock_latest_quote", "args": {"symbol": "AAPL"}}`,
		`{"t": 0, "tool": "place_stock_order", "args": {"symbol": "AAPL", "side": "buy", "qty": "2", "type": "market"}}`,
		`{"t": 0.1, "tool": "place_order", "args": {"symbol": "MSFT", "side": "buy", "quantity": "3", "reason": "typed order"}}`,
		`{"t": 0.2, "tool": "place_stock_order", "args": {"symbol": "AAPL", "side": "buy", "qty": "1", "order_class": "bracket", "take_profit_limit_price": "500"}}`,
		`{"t": 0.3, "tool": "place_stock_order", "args": {"symbol": "SPY", "side": "buy", "notional": "9000"}}`,
		`{"t": 5, "tool": "place_stock_order", "args": {"symbol": "AAPL", "side": "buy", "qty": "1"}}`,
	}
	if err := os.WriteFile(script, []byte(strings.Join(steps, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan [3]any, 1)
	var out syncBuffer
	go func() {
		var errOut syncBuffer
		a := NewApp(strings.NewReader(""), &out, &errOut)
		a.Getenv = func(k string) string {
			if k == "COCKPIT_HOME" {
				return home
			}
			return env[k]
		}
		code := a.Run([]string{"run", "--headless", "--agent", "replay", "--approvals", "cli", "--script", script, "--for", "8s"})
		done <- [3]any{code, errOut.String(), nil}
	}()
	// The oversize order waits for a human; the kill switch trips while it waits; the human's
	// approval then sends it back through the gate, which refuses it: halted.
	deadline := time.Now().Add(60 * time.Second)
	var id string
	for id == "" {
		if time.Now().After(deadline) {
			t.Fatalf("no review item appeared:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
		if db, err := store.Open(filepath.Join(home, "cockpit.db")); err == nil {
			if items, _ := db.Approvals(context.Background(), store.ApprovalPending, 1); len(items) == 1 {
				id = items[0].ID
			}
			db.Close()
		}
	}
	if o, e, code := runLive(t, home, env, "approvals", "approve", id, "--reason", "e2e"); code != 0 {
		t.Fatalf("approve: exit %d %s %s", code, o, e)
	}
	for !strings.Contains(out.String(), "(approved "+id+")") {
		if time.Now().After(deadline) {
			t.Fatalf("the approved order never went through:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if o, e, code := runLive(t, home, env, "halt", "--broker", "mcppaper", "--reason", "e2e"); code != 0 {
		t.Fatalf("halt: exit %d %s %s", code, o, e)
	}
	r := <-done
	text := out.String()
	if r[0].(int) != exitFailure || !strings.Contains(fmt.Sprint(r[1]), "ended HALTED e2e") { // halted mid-run: exit 1 (issue 27)
		t.Fatalf("run: exit %v %v, want %d and the halt named\n%s", r[0], r[1], exitFailure, text)
	}
	for _, line := range strings.Split(text, "\n") {
		t.Log(line)
	}
	for _, want := range []string{"cockpit headless on mcppaper", "call    get_stock_latest_quote ok", "ALLOW   buy", "REVIEW  " + id, "review  " + id + " APPROVED",
		"intent_unparsed", "HALT    mcppaper is halted", "flatten FLAT (verified"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if n := strings.Count(text, "ALLOW   buy"); n < 3 {
		t.Errorf("ALLOW buy lines: got %d, want 3 (the MCP tool, cockpit's place_order, the approved order)", n)
	}
	// The next order meets the HALT: the agent is paused, and the gate says halted.
	chk, _, code := runLive(t, home, env, "check", "--broker", "mcppaper", "--symbol", "AAPL", "--side", "buy", "--notional", "100")
	t.Logf("check after HALT: exit %d %s", code, chk)
	if code != exitNotAllow || !strings.Contains(chk, `"kind":"halted"`) {
		t.Errorf("check after HALT: exit %d %s, want a halted refusal", code, chk)
	}
	st, _, _ := runLive(t, home, env, "status", "--broker", "mcppaper")
	t.Logf("status:\n%s", st)
	if !strings.Contains(st, "mcppaper [PAPER]") || !strings.Contains(st, "Link:      mcp, connected, ") {
		t.Errorf("status lacks the PAPER badge or the link:\n%s", st)
	}
	v, _, code := runLive(t, home, env, "audit", "verify")
	if code != 0 || !strings.Contains(v, "audit chain OK") {
		t.Fatalf("audit verify: %d %s", code, v)
	}
	list, _, _ := runLive(t, home, env, "audit", "list")
	for _, want := range []string{"order_placed     accepted                           buy $", "intent_unparsed", "breach", "approval_approved",
		"halt_tripped", "reduce AAPL: sell 2", "FLAT (verified"} {
		if !strings.Contains(list, want) {
			t.Errorf("audit list lacks %q:\n%s", want, list)
		}
	}
}

// TestInitBrokerMCP: `init --broker mcp` adds the commented [brokers.mcp] table once, the
// config stays valid, and status probes the table's server (here a command that does not
// exist: the link is reported down, naming the failure).
func TestInitBrokerMCP(t *testing.T) {
	home := t.TempDir()
	out, errOut, code := runLive(t, home, nil, "init", "--broker", "mcp")
	if code != 0 || !strings.Contains(out, "with a [brokers.mcp] table") {
		t.Fatalf("init --broker mcp: exit %d %s %s", code, out, errOut)
	}
	if out, _, _ := runLive(t, home, nil, "init", "--broker", "mcp"); !strings.Contains(out, "already has [brokers.mcp]") {
		t.Fatalf("second init: %s", out)
	}
	data, _ := os.ReadFile(filepath.Join(home, "config.toml"))
	if strings.Count(string(data), "\n[brokers.mcp]\n") != 1 || !strings.Contains(string(data), `profile = "alpaca"`) {
		t.Fatalf("config.toml:\n%s", data)
	}
	if err := os.MkdirAll(filepath.Join(home, "live", "mcp"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := strings.Replace(string(data), `command = "cockpit"`, `command = "/nonexistent/mcp-server"`, 1)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	st, _, _ := runLive(t, home, nil, "status", "--broker", "mcp")
	if !strings.Contains(st, "mcp [PAPER]") || !strings.Contains(st, "Link:      mcp, DOWN") {
		t.Fatalf("status:\n%s", st)
	}
	if _, e, code := runLive(t, home, nil, "init", "--broker", "ibkr"); code != exitUsage || !strings.Contains(e, "want alpaca or mcp") {
		t.Fatalf("init --broker ibkr: exit %d %s", code, e)
	}
}

// TestStrategyAgainstMCPPaperServer: the built-in strategy trades through the MCP server as a
// child process: its bars come from the server's get_stock_bars, its orders through cockpit's
// place_order built into the server's order tool, all through the gate; on quit the halt's
// flatten closes the book through the server's reads.
func TestStrategyAgainstMCPPaperServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	home, env := mcpPaperHome(t, "[agents.strategy]\ninterval = \"50ms\"", "")
	out, errOut, code := runLive(t, home, env, "run", "--headless", "--agent", "strategy", "--for", "3s")
	if code != 0 {
		t.Fatalf("run: exit %d %s\n%s", code, errOut, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, " call ") && line != "" {
			t.Log(line)
		}
	}
	for _, want := range []string{"cockpit headless on mcppaper (strategy agent", "call    get_bars", "ALLOW   buy", "on quit: HALT mcppaper — FLAT (verified"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The server's replies show its fills (issue 29 item 3): every order the run printed as
	// filled is one fill event, and with the on-quit flatten's closing fills the FIFO book is
	// flat, as the server's account is.
	byOrder, evs := fillEvents(t, home, env)
	for _, id := range printedFills(out) {
		if byOrder[id] != 1 {
			t.Errorf("order %s: printed as filled, %d fill events; want 1", id, byOrder[id])
		}
	}
	if pnl, _, _ := runLive(t, home, env, "pnl", "--days", "1"); len(evs) == 0 || strings.Contains(pnl, "mcppaper:") {
		t.Errorf("%d fill events; pnl after a verified flat quit (an open position reads mcppaper:SYMBOL):\n%s", len(evs), pnl)
	}
	if v, _, code := runLive(t, home, env, "audit", "verify"); code != 0 || !strings.Contains(v, "audit chain OK") {
		t.Fatalf("audit verify: %d %s", code, v)
	}
}

// mcpPaperHome is a root trading through cockpit's demo MCP server (this test binary as a
// stdio child, Alpaca's tool names) in paper mode, halting on quit, with agent the agent's
// config section and table extra lines of the [brokers.mcppaper] table; its mandate (with
// flatten_on_halt) is committed. env is what the child needs.
func mcpPaperHome(t *testing.T, agent, table string) (string, map[string]string) {
	t.Helper()
	home := t.TempDir()
	cfg := fmt.Sprintf(`[cockpit]
broker = "mcppaper"
on_quit = "halt"
[policy]
profile = "paper"
%s
[brokers.mcppaper]
kind = "mcp"
mode = "paper"
%s
command = %q
args = ["mcp-paper-server", "--profile", "alpaca"]
env_pass = ["COCKPIT_TEST_MAIN"]
profile = "alpaca"
`, agent, table, os.Args[0])
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"COCKPIT_TEST_MAIN": "1"}
	draft := writeDraft(t, strings.Replace(livetest.MandateDoc, `{"hard_caps"`, `{"flatten_on_halt": true, "hard_caps"`, 1))
	// the verb calls every non-paper key live before it reads the config (noted)
	if out, errOut, code := runLive(t, home, env, "mandate", "commit", "--broker", "mcppaper", "--from", draft, "--yes", "--i-understand-this-is-live"); code != 0 {
		t.Fatalf("mandate commit: exit %d %s %s", code, out, errOut)
	}
	return home, env
}
