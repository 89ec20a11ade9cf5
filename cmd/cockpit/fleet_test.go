package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"cockpit/fleet"
)

// TestFleetVerbs: `fleet serve` starts a loopback server under <root>/fleet and prints its
// URL; it refuses a client without its token (<root>/fleet.token); another home joined to it publishes `cockpit halt` and `resume`, which `fleet status`
// shows; `audit list --fleet` reads the stream.
func TestFleetVerbs(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	server, client := t.TempDir(), t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	fleetServeContext = func() context.Context { return ctx }
	defer func() { fleetServeContext = context.Background }()
	type result struct {
		out  string
		code int
	}
	served := make(chan result, 1)
	go func() {
		out, _, code := run(t, server, "", "fleet", "serve", "--listen", fmt.Sprintf("127.0.0.1:%d", port))
		served <- result{out, code}
	}()
	defer func() {
		cancel()
		r := <-served
		if r.code != 0 || !strings.Contains(r.out, fmt.Sprintf("nats://127.0.0.1:%d", port)) || !strings.Contains(r.out, filepath.Join(server, "fleet")) {
			t.Errorf("fleet serve: exit %d\n%s", r.code, r.out)
		}
	}()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			break
		}
	}
	// The server requires its token (<root>/fleet.token, 0600): an anonymous client is refused.
	tokPath := filepath.Join(server, fleet.TokenFile)
	if fi, err := os.Stat(tokPath); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v, want mode 0600", fi, err)
	}
	if nc, err := nats.Connect(fmt.Sprintf("nats://127.0.0.1:%d", port)); err == nil {
		nc.Close()
		t.Fatal("a client without the token was let in")
	} else if !strings.Contains(strings.ToLower(err.Error()), "authorization") {
		t.Errorf("anonymous client: err = %v, want an authorization violation", err)
	}
	tok, err := os.ReadFile(tokPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(client, fleet.TokenFile), tok, 0o600); err != nil { // another root on this machine
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("[fleet]\nurl = \"nats://127.0.0.1:%d\"\nhost = \"desk2\"\n", port)
	if err := os.WriteFile(filepath.Join(client, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := run(t, client, "", "halt", "--reason", "fleet drill"); code != 0 || !strings.Contains(out, "Fleet: published") {
		t.Fatalf("halt: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code := run(t, client, "", "fleet", "status")
	if code != 0 || !strings.Contains(out, "HALTED global") || !strings.Contains(out, "fleet drill") || !strings.Contains(out, "Orders today (paper, fleet-wide): 0") {
		t.Fatalf("fleet status: exit %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code := run(t, client, "", "resume", "--reason", "drill over"); code != 0 || !strings.Contains(out, "Fleet: published") {
		t.Fatalf("resume: exit %d\n%s%s", code, out, errOut)
	}
	if out, _, _ := run(t, client, "", "fleet", "status"); !strings.Contains(out, "No fleet halt.") {
		t.Fatalf("fleet status after the resume:\n%s", out)
	}
	f, err := fleet.Connect(fleet.Options{URL: fmt.Sprintf("nats://127.0.0.1:%d", port), Host: "desk1", Token: strings.TrimSpace(string(tok))})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec := []byte(`{"Time":"2026-06-01T15:00:00Z","Kind":"order_placed","Outcome":"accepted","Intent":"buy $100 AAPL","Actor":{"Kind":"agent"}}`)
	if err := f.PublishAudit(context.Background(), fleet.AuditEntry{Host: "desk1", Hash: "h1", Record: rec}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = run(t, client, "", "audit", "list", "--fleet")
	if code != 0 || !strings.Contains(out, "desk1") || !strings.Contains(out, "buy $100 AAPL") {
		t.Fatalf("audit list --fleet: exit %d\n%s%s", code, out, errOut)
	}
	// A what-if counts the day as the gate does in a fleet: the other hosts' 5 orders fill
	// this mandate's 5 a day, though this host sent none (issue 28 §2).
	if _, errOut, code := run(t, client, "", "mandate", "commit", "--broker", "paper", "--from", writeDraft(t, draft), "--yes"); code != 0 {
		t.Fatalf("commit: exit %d %s", code, errOut)
	}
	days := &fleet.Days{F: f}
	for range 5 {
		if _, err := days.Reserve(context.Background(), "paper", "2026-06-01"); err != nil { // fixedNow's day
			t.Fatal(err)
		}
	}
	out, errOut, code = run(t, client, "", "check", "--symbol", "AAPL", "--side", "buy", "--notional", "100")
	if code != exitNotAllow || !strings.Contains(out, `"limit":"max_trades_per_day"`) || !strings.Contains(out, `"orders_today":5`) {
		t.Fatalf("check in a fleet at 5/5: exit %d %s%s, want a max_trades_per_day pause at 5", code, out, errOut)
	}
}

// TestCheckWithAFleetThatDoesNotAnswer: a what-if on a root whose fleet does not answer is
// denied fleet_unavailable, as the gate would deny the order: the day's count is unknown.
func TestCheckWithAFleetThatDoesNotAnswer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close() // nothing listens there
	home := t.TempDir()
	run(t, home, "", "init")
	commitDraft(t, home, draft)
	cfg, err := os.ReadFile(filepath.Join(home, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg = append(cfg, fmt.Sprintf("\n[fleet]\nurl = \"nats://127.0.0.1:%d\"\nhost = \"desk9\"\n", port)...)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, home, "", "check", "--symbol", "AAPL", "--side", "buy", "--notional", "100")
	if code != exitNotAllow || !strings.Contains(out, `"kind":"fleet_unavailable"`) {
		t.Fatalf("check with the fleet down: exit %d %s%s, want %d and fleet_unavailable", code, out, errOut, exitNotAllow)
	}
}

// TestFleetStatusWithoutFleet: status without [fleet] says so and fails.
func TestFleetStatusWithoutFleet(t *testing.T) {
	_, errOut, code := run(t, t.TempDir(), "", "fleet", "status")
	if code == 0 || !strings.Contains(errOut, "no fleet is configured") {
		t.Fatalf("exit %d, stderr %q; want a failure naming the missing [fleet]", code, errOut)
	}
}
