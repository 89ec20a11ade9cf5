package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"cockpit/fleet"
	"cockpit/store"
)

// TestFleetVerbs: `fleet serve` starts a loopback server under <root>/fleet and prints its
// URL; it refuses a client without credentials, even with a token; another home joined with
// the creds `fleet add-host` wrote publishes `cockpit halt` and `resume`, which `fleet status`
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
	srvCfg := fmt.Sprintf("[fleet]\nurl = \"nats://127.0.0.1:%d\"\nhost = \"desk1\"\n", port)
	if err := os.WriteFile(filepath.Join(server, "config.toml"), []byte(srvCfg), 0o600); err != nil {
		t.Fatal(err)
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
	// The server takes only credentials its authority signed: an anonymous client and a client
	// with a token are refused.
	if fi, err := os.Stat(filepath.Join(server, fleet.AuthorityFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("authority file: %v %v, want mode 0600", fi, err)
	}
	for _, opt := range []nats.Option{nats.Name("anonymous"), nats.Token(strings.Repeat("0", 64))} {
		if nc, err := nats.Connect(fmt.Sprintf("nats://127.0.0.1:%d", port), opt); err == nil {
			nc.Close()
			t.Fatal("a client without credentials was let in")
		} else if !strings.Contains(strings.ToLower(err.Error()), "authorization") {
			t.Errorf("client without credentials: err = %v, want an authorization violation", err)
		}
	}
	// Another root on this machine joins with the creds `fleet add-host` writes.
	if out, errOut, code := run(t, server, "", "fleet", "add-host", "desk2", "--out", filepath.Join(client, fleet.CredsFile)); code != 0 || !strings.Contains(out, "Host desk2: key U") {
		t.Fatalf("add-host: exit %d\n%s%s", code, out, errOut)
	}
	if fi, err := os.Stat(filepath.Join(client, fleet.CredsFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("creds file: %v %v, want mode 0600", fi, err)
	}
	time.Sleep(time.Second) // the running server publishes the new host
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
	f, err := fleet.Connect(fleet.Options{URL: fmt.Sprintf("nats://127.0.0.1:%d", port), Creds: filepath.Join(server, fleet.CredsFile)})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// desk1's trail: one event, published with its chain hash, then a copy with its summary
	// changed (the hash kept), as a forger with desk1's credentials would publish it.
	db, err := store.Open(filepath.Join(t.TempDir(), "cockpit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ev, err := db.Append(context.Background(), store.Event{Time: fixedNow, ActorKind: "agent", Type: "order_placed", Outcome: "accepted", Summary: "buy $100 AAPL"})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(ev)
	if err := f.PublishAudit(context.Background(), fleet.AuditEntry{Seq: ev.Seq, Prev: ev.PrevHash, Hash: ev.Hash, Event: data}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = run(t, client, "", "audit", "list", "--fleet")
	if code != 0 || !strings.Contains(out, "ok      desk1") || !strings.Contains(out, "buy $100 AAPL") {
		t.Fatalf("audit list --fleet: exit %d\n%s%s", code, out, errOut)
	}
	ev.Summary = "buy $1 AAPL"
	data, _ = json.Marshal(ev)
	if err := f.PublishAudit(context.Background(), fleet.AuditEntry{Seq: ev.Seq + 1, Prev: ev.Hash, Hash: ev.Hash + "0", Event: data}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = run(t, client, "", "audit", "list", "--fleet")
	if code == 0 || !strings.Contains(out, "FORGED  desk1") || !strings.Contains(errOut, "do not check out") {
		t.Fatalf("audit list --fleet with a forged record: exit %d\n%s%s", code, out, errOut)
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
