package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	gossh "golang.org/x/crypto/ssh"

	"cockpit/fleet"
	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/live/money"
	"cockpit/sshserve"
	"cockpit/store"
)

// Issue 27's repro text: owned sets the window title, clears the screen, moves up and erases
// the line; osc52 writes "Hello" to the clipboard; csi is a C1 CSI (U+009B) clearing the screen.
const (
	owned = "\x1b]0;OWNED\a\x1b[2J\x1b[1A\x1b[2K"
	osc52 = "\x1b]52;c;SGVsbG8=\a"
	csi   = "\u009b2J"
)

// terminalSafe fails the test when out holds a byte or character a terminal acts on (any
// control but the line feed, DEL, a C1 control, a byte that is not UTF-8), or when it does not
// show want, the escaped form of what was injected.
func terminalSafe(t *testing.T, what, out, want string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s: not UTF-8:\n%q", what, out)
	}
	for i, r := range out {
		if (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			t.Errorf("%s: control %U at byte %d:\n%q", what, r, i, out)
			return
		}
	}
	if !strings.Contains(out, want) {
		t.Errorf("%s: %q not shown:\n%s", what, want, out)
	}
}

// replayScript writes a replay agent's script whose orders carry the repro in the symbol,
// the order id and the reason, and reads a quote for an OSC 52 symbol.
func replayScript(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, l := range []map[string]any{
		{"t": 0, "tool": "place_order", "args": map[string]any{"symbol": owned, "side": "buy", "notional": "100", "reason": "r" + owned}},
		{"t": 0, "tool": "place_order", "args": map[string]any{"symbol": osc52 + csi, "side": "buy", "quantity": "1", "reason": "x"}},
		{"t": 0, "tool": "cancel_order", "args": map[string]any{"order_id": owned}},
		{"t": 0, "tool": "get_quote", "args": map[string]any{"symbol": osc52}},
	} {
		line, _ := json.Marshal(l)
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(t.TempDir(), "evil.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAgentTextNeverDrivesTheTerminal is issue 27 item 4's repro: a replay agent's orders
// whose symbol and order id hold an OSC title, a screen clear and an OSC 52 clipboard write.
// The headless console, `audit list`, `audit show` and `audit export --format csv` print them
// escaped; the JSON outputs keep them as JSON escapes and still decode to the same text.
func TestAgentTextNeverDrivesTheTerminal(t *testing.T) {
	home := fastHome(t, "")
	out, errOut, code := runLive(t, home, nil, "run", "--headless", "--agent", "replay", "--script", replayScript(t), "--for", "20s")
	if code != 0 {
		t.Fatalf("run: exit %d %s\n%s", code, errOut, out)
	}
	terminalSafe(t, "headless console", out, `\x1b]0;OWNED\x07\x1b[2J\x1b[1A\x1b[2K`)
	terminalSafe(t, "headless console", out, `\x1b]52;c;SGVsbG8=\x07`)
	list, _, _ := runLive(t, home, nil, "audit", "list")
	terminalSafe(t, "audit list", list, `\x1b]0;OWNED\x07`)
	show, _, _ := runLive(t, home, nil, "audit", "show", "2")
	terminalSafe(t, "audit show", show, `\u001b]`)
	csv, _, _ := runLive(t, home, nil, "audit", "export", "--format", "csv")
	terminalSafe(t, "audit export csv", csv, `\x1b]0;OWNED\x07`)
	for _, args := range [][]string{{"audit", "list", "--json"}, {"audit", "export", "--format", "jsonl"}} {
		js, _, _ := runLive(t, home, nil, args...)
		terminalSafe(t, strings.Join(args, " "), js, `\u001b]0;OWNED\u0007`)
		terminalSafe(t, strings.Join(args, " "), js, `\u009b2J`)
		found := false
		lines := strings.Split(strings.TrimSpace(js), "\n")
		if args[1] == "list" { // one array, an event per line
			lines = nil
			for _, v := range jsonArray(t, "audit list --json", js) {
				b, _ := json.Marshal(v)
				lines = append(lines, string(b))
			}
		}
		for _, line := range lines {
			var v map[string]any
			if err := json.Unmarshal([]byte(line), &v); err != nil {
				t.Fatalf("%v: not JSON: %v\n%s", args, err, line)
			}
			found = found || strings.Contains(fmt.Sprint(v["summary"]), owned)
		}
		if !found {
			t.Errorf("%v: no summary decodes to the agent's symbol:\n%s", args, js)
		}
	}
}

// TestCSVCellsCannotBeFormulas: a cell an agent controls that starts like a spreadsheet
// formula is prefixed with a quote in the CSV export.
func TestCSVCellsCannotBeFormulas(t *testing.T) {
	home := t.TempDir()
	db, err := store.Open(filepath.Join(home, "cockpit.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"=HYPERLINK(\"http://x\")", "+1", "-2", "@SUM(A1)", "plain"} {
		if err := db.Record(context.Background(), live.AuditRecord{Time: fixedNow, Actor: live.Agent("replay", "s"), Kind: "order_rejected",
			Outcome: "blocked", Tool: "place_order", OrderID: s, Intent: s}); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	csv, _, code := run(t, home, "", "audit", "export", "--format", "csv")
	if code != 0 {
		t.Fatalf("export: exit %d", code)
	}
	for _, want := range []string{`'=HYPERLINK(`, ",'+1,", ",'-2,", ",'@SUM(A1),", ",plain,"} {
		if !strings.Contains(csv, want) {
			t.Errorf("the CSV lacks %q:\n%s", want, csv)
		}
	}
}

// TestTablesEscapeBrokerText: orders, positions and review items a broker or an agent filled
// with escape sequences print escaped in the tables and as JSON escapes with --json.
func TestTablesEscapeBrokerText(t *testing.T) {
	q := money.MustParse("1")
	bk := book{positions: []live.Position{{Symbol: owned, Qty: q}},
		orders: []live.Order{{ID: osc52, ClientOrderID: owned, Symbol: owned + csi, Side: "buy" + owned, Type: live.OrderType(osc52),
			Quantity: &q, Status: live.OrderStatus(owned), CreatedAt: fixedNow}}}
	for _, asJSON := range []bool{false, true} {
		var out bytes.Buffer
		a := NewApp(strings.NewReader(""), &out, &out)
		a.printPositions(bk, asJSON)
		a.printOrders(bk, asJSON)
		want := `\x1b]0;OWNED\x07`
		if asJSON {
			want = `\u001b]0;OWNED\u0007`
		}
		terminalSafe(t, fmt.Sprintf("positions and orders (json %v)", asJSON), out.String(), want)
	}
	var out bytes.Buffer
	approvalsTable(&out, []store.Approval{{ID: "ap_1", Broker: "paper", OrderJSON: `{"symbol":"` + strings.ReplaceAll(owned, "\x1b", `\u001b`) + `"}`,
		Why: "breach" + osc52, Detail: owned, State: store.ApprovalDenied, ResolvedBy: "ssh:" + owned, Outcome: csi}}, fixedNow)
	terminalSafe(t, "approvals list", out.String(), `\x1b]0;OWNED\x07`)
}

// TestSentinelTextEscaped: a HALT sentinel whose by and reason hold escape sequences (the
// file is outside data: anyone who can write the directory writes it) prints escaped in
// `status`, `halt` (already halted) and `resume`.
func TestSentinelTextEscaped(t *testing.T) {
	home := t.TempDir()
	if _, _, code := run(t, home, "", "init"); code != 0 {
		t.Fatal("init failed")
	}
	root, _ := live.NewRoot(home)
	if _, err := halt.Trip(root, live.HaltSentinel, live.GlobalScope, owned, osc52, fixedNow); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"status"}, {"halt", "--reason", "again"}} {
		out, errOut, _ := run(t, home, "", args...)
		terminalSafe(t, strings.Join(args, " "), out+errOut, `\x1b]0;OWNED\x07`)
	}
}

// TestSSHKeyCommentEscapedInAuditList: an authorized key whose comment holds escape sequences
// (the name its connections are audited under) prints escaped in `audit list`.
func TestSSHKeyCommentEscapedInAuditList(t *testing.T) {
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := gossh.NewPublicKey(pub)
	line := "role=operator " + strings.TrimSpace(string(gossh.MarshalAuthorizedKey(k))) + " alice" + owned + osc52
	ids, err := sshserve.ParseAuthorizedKeys([]byte(line))
	if err != nil || len(ids) != 1 {
		t.Fatalf("ParseAuthorizedKeys: %v %v", ids, err)
	}
	id := ids[0]
	if !strings.Contains(id.Name(), "\x1b") {
		t.Fatalf("the comment lost its escape before the audit: %q", id.Name())
	}
	home := t.TempDir()
	db, err := store.Open(filepath.Join(home, "cockpit.db"))
	if err != nil {
		t.Fatal(err)
	}
	// What sshserve records when the key connects.
	err = db.Record(context.Background(), live.AuditRecord{Time: fixedNow, Actor: live.Operator(id.Actor(), "s"), Kind: sshserve.KindConnect,
		Outcome: live.OutcomeAccepted, Intent: fmt.Sprintf("%s connected over SSH as %s from %s (%s)", id.Name(), id.Role, "127.0.0.1:2222", id.Fingerprint)})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	out, _, _ := run(t, home, "", "audit", "list")
	terminalSafe(t, "audit list", out, `alice\x1b]0;OWNED\x07`)
}

// TestFleetViewsEscapePeerText: a fleet peer's heartbeat, halt and audit entries hold escape
// sequences; `fleet status` and `audit list --fleet` print them escaped.
func TestFleetViewsEscapePeerText(t *testing.T) {
	ns, err := fleet.Serve(fleet.ServeOptions{Port: -1, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Shutdown()
	peer, err := fleet.Connect(fleet.Options{URL: ns.ClientURL(), Host: "desk1"})
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := peer.PutBeat(ctx, fleet.Beat{State: owned, Broker: osc52, LastEvent: owned, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := peer.PublishHalt(ctx, live.GlobalScope, fleet.HaltValue{Halted: true, By: owned, Reason: osc52, Host: owned, At: fixedNow}); err != nil {
		t.Fatal(err)
	}
	rec, _ := json.Marshal(store.Event{Time: fixedNow, Type: "order" + owned, Outcome: osc52, Summary: "buy $100 " + owned,
		ActorKind: "agent" + csi})
	if err := peer.PublishAudit(ctx, fleet.AuditEntry{Host: "desk1" + owned, Seq: 1, Hash: "h1", Event: rec}); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cfg := fmt.Sprintf("[fleet]\nurl = %q\nhost = \"desk2\"\n", ns.ClientURL())
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"fleet", "status"}, {"audit", "list", "--fleet"}} {
		out, errOut, code := run(t, home, "", args...)
		if code != 0 && args[0] == "fleet" { // audit list --fleet exits 1: an unsigned entry does not check out
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
		terminalSafe(t, strings.Join(args, " "), out, `\x1b]0;OWNED\x07`)
		terminalSafe(t, strings.Join(args, " ")+" (stderr)", errOut, "")
	}
}

// TestCheckBatchKeepsJSONEscapes: a what-if file's id holding a C1 CSI and an OSC title comes
// back in the verdict as JSON escapes (the encoder leaves U+009B raw).
func TestCheckBatchKeepsJSONEscapes(t *testing.T) {
	out, _, _ := run(t, t.TempDir(), `{"id": "x\u009b2J\u001b]0;T\u0007", "intent": {"symbol": "AAPL"}}`+"\n", "check", "--batch", "-")
	terminalSafe(t, "check --batch", out, `"id":"x\u009b2J\u001b]0;T\u0007"`)
}

// TestCheckExplainEscapesTheSymbol: `check --explain` names the refused symbol escaped.
func TestCheckExplainEscapesTheSymbol(t *testing.T) {
	home := t.TempDir()
	run(t, home, "", "init")
	out, errOut, _ := run(t, home, "", "check", "--symbol", "AAPL"+owned, "--side", "buy", "--notional", "100", "--explain")
	terminalSafe(t, "check --explain", out+errOut, `\x1b]0;OWNED\x07`)
}
