package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"cockpit/live"
	"cockpit/live/counter"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
	"cockpit/session"
	"cockpit/store"
)

// tenOrders is a replay script of ten small market buys.
func tenOrders(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, `{"t": %d, "tool": "place_order", "args": {"symbol": "AAPL", "side": "buy", "notional": %d, "reason": "r"}}`+"\n", i, 100+i)
	}
	path := filepath.Join(t.TempDir(), "orders.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// sqlExec runs SQL on the database file directly, as a trigger-writing attacker or a tool would.
func sqlExec(t *testing.T, path, q string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(q); err != nil {
		t.Fatal(err)
	}
}

// TestRunHeadlessBlockedAuditTable is issue 10 item 3's repro (DV15): a trigger makes every
// insert into events fail; ten scripted orders must give 0 sent, HALTED audit_unavailable on
// the screen's source (the sentinel) and in the summary, and exit 1 (today: 10 placed, exit 0).
func TestRunHeadlessBlockedAuditTable(t *testing.T) {
	home := fastHome(t, "")
	if _, e, code := runLive(t, home, nil, "init"); code != 0 {
		t.Fatal(e)
	}
	sqlExec(t, filepath.Join(home, "cockpit.db"), `CREATE TRIGGER block BEFORE INSERT ON events BEGIN SELECT RAISE(FAIL, 'x'); END`)
	out, errOut, code := runLive(t, home, nil, "run", "--headless", "--agent", "replay", "--script", tenOrders(t), "--for", "10s")
	if code != exitFailure {
		t.Errorf("exit %d, want %d", code, exitFailure)
	}
	if !strings.Contains(out, "orders placed 0") {
		t.Errorf("summary does not say 0 orders placed:\n%s", out)
	}
	if !strings.Contains(errOut, "HALTED audit_unavailable") || !strings.Contains(out, "HALTED audit_unavailable") {
		t.Errorf("the reason is not printed:\nstdout %s\nstderr %s", out, errOut)
	}
	if n := counter.ReadDailyCount(live.Root(home), "paper", fixedNow); n != 0 {
		t.Errorf("orders counted today: %d", n)
	}
	st, _, _ := run(t, home, "", "status")
	if !strings.Contains(st, "HALTED") || !strings.Contains(st, "audit_unavailable") {
		t.Errorf("status does not show HALTED audit_unavailable:\n%s", st)
	}
}

// TestCorruptStoreStartsHaltedThenRotate: garbage over four pages in the middle of the
// database starts the session HALTED with the first bad event named (today: it trades);
// `audit rotate` archives it and starts a chain whose first record carries the old head;
// after `resume` the next run trades again.
func TestCorruptStoreStartsHaltedThenRotate(t *testing.T) {
	home := fastHome(t, "")
	if _, e, code := runLive(t, home, nil, "init"); code != 0 {
		t.Fatal(e)
	}
	path := filepath.Join(home, "cockpit.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("padding ", 60)
	for i := 0; i < 400; i++ {
		if err := db.Record(context.Background(), live.AuditRecord{Kind: "tool_call", Outcome: "accepted", Intent: fmt.Sprint("read ", i),
			Detail: jsonv.ObjectOf("pad", pad)}); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mid := (len(data) / 4096 / 2) * 4096
	copy(data[mid:], bytes.Repeat([]byte{0xA5}, 4*4096))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runLive(t, home, nil, "run", "--headless", "--agent", "replay", "--script", tenOrders(t), "--for", "10s")
	if code != exitFailure || !strings.Contains(errOut, "HALTED audit_unavailable") || !strings.Contains(errOut, "first bad event") {
		t.Fatalf("run on a corrupt store: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if !strings.Contains(out, "orders placed 0") {
		t.Fatalf("orders went out on a corrupt store:\n%s", out)
	}
	rot, errOut, code := run(t, home, "", "audit", "rotate", "--reason", "disk damage")
	if code != 0 || !strings.Contains(rot, "new chain: event 1 audit_rotated") || !strings.Contains(rot, "carried over the committed mandate hash for paper") {
		t.Fatalf("rotate: exit %d %s %s", code, rot, errOut)
	}
	first, _, code := run(t, home, "", "audit", "show", "1")
	if code != 0 || !strings.Contains(first, `"type": "audit_rotated"`) || !strings.Contains(first, `"previous_head_hash"`) || !strings.Contains(first, "disk damage") {
		t.Fatalf("the new chain's first record: %s", first)
	}
	if v, _, code := run(t, home, "", "audit", "verify"); code != 0 {
		t.Fatalf("verify after rotate: %d %s", code, v)
	}
	if _, e, code := run(t, home, "", "resume", "--reason", "rotated"); code != 0 {
		t.Fatalf("resume after rotate: %d %s", code, e)
	}
	out, errOut, code = runLive(t, home, nil, "run", "--headless", "--agent", "replay", "--script", tenOrders(t), "--for", "10s")
	if code != 0 || strings.Contains(out, "orders placed 0") {
		t.Fatalf("run after rotate and resume: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	// On exit the anchor holds the chain's head.
	db, err = store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	head, _ := db.Head(context.Background())
	anchor, found, err := store.ReadHead(filepath.Join(home, store.AnchorFile))
	if err != nil || !found || anchor.Seq != head.Seq || anchor.Hash != head.Hash {
		t.Fatalf("anchor %+v (found %v, %v), want the head %+v", anchor, found, err, head)
	}
}

// TestAuditVerifyRefusesAReplacedStore: a database swapped for an empty one (today "OK: 0
// events") or for one that lost its tail is refused, by the anchor written outside it.
func TestAuditVerifyRefusesAReplacedStore(t *testing.T) {
	cases := []struct {
		name, want string
		damage     func(t *testing.T, path string)
	}{
		{"emptied", "emptied", func(t *testing.T, path string) {
			for _, s := range []string{"", "-wal", "-shm"} {
				os.Remove(path + s)
			}
			db, err := store.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			db.Close()
		}},
		{"truncated", "truncated", func(t *testing.T, path string) {
			sqlExec(t, path, `DROP TRIGGER events_append_only_delete; DELETE FROM events WHERE seq > 1`)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			for _, args := range [][]string{{"init"}, {"halt", "--reason", "x"}, {"resume", "--reason", "y"}} {
				if _, e, code := run(t, home, "", args...); code != 0 {
					t.Fatalf("%v: %s", args, e)
				}
			}
			c.damage(t, filepath.Join(home, "cockpit.db"))
			out, _, code := run(t, home, "", "audit", "verify")
			if code != exitFailure || !strings.Contains(out, "REFUSED") || !strings.Contains(out, c.want) {
				t.Fatalf("verify: exit %d, want %d and a refusal naming %q:\n%s", code, exitFailure, c.want, out)
			}
		})
	}
}

// TestStatusFailsOnUnusableStoreOrConfig: status exits non-zero when the database cannot be
// opened or the config is invalid (today: 0).
func TestStatusFailsOnUnusableStoreOrConfig(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, home string)
	}{
		{"config", func(t *testing.T, home string) {
			os.WriteFile(filepath.Join(home, "config.toml"), []byte("[cockpit]\nbrokr = \"paper\"\n"), 0o600)
		}},
		{"database", func(t *testing.T, home string) {
			path := filepath.Join(home, "cockpit.db")
			for _, s := range []string{"-wal", "-shm"} {
				os.Remove(path + s)
			}
			os.WriteFile(path, bytes.Repeat([]byte("not a database "), 500), 0o600)
		}},
		{"deleted database", func(t *testing.T, home string) {
			for _, s := range []string{"", "-wal", "-shm"} {
				os.Remove(filepath.Join(home, "cockpit.db") + s)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			if _, e, code := run(t, home, "", "init"); code != 0 {
				t.Fatal(e)
			}
			c.damage(t, home)
			if out, _, code := run(t, home, "", "status"); code != exitFailure {
				t.Fatalf("status: exit %d, want %d:\n%s", code, exitFailure, out)
			}
		})
	}
}

// TestScreenShowsAuditLatch: the screen's snapshot shows the gate's in-memory latch as HALTED
// audit_unavailable even with no HALT file, and resume from the screen is refused while it holds.
func TestScreenShowsAuditLatch(t *testing.T) {
	home := t.TempDir()
	a := NewApp(strings.NewReader(""), &syncBuffer{}, &syncBuffer{})
	a.Getenv = func(k string) string { return map[string]string{"COCKPIT_HOME": home}[k] }
	s, err := a.openSession("", session.Options{Agent: "none", Approvals: "tui"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Gate().TripAuditHalt(fmt.Errorf("append audit event: disk full"))
	halt.Clear(s.Runtime().Root, live.HaltSentinel, live.GlobalScope) // the disk may not have taken it
	be := s.Backend()
	snap := be.Snapshot(context.Background())
	if snap.State != live.Halted || !snap.Paused || !strings.Contains(snap.HaltReason, "audit_unavailable") {
		t.Fatalf("snapshot state %s paused %v reason %q, want HALTED audit_unavailable", snap.State, snap.Paused, snap.HaltReason)
	}
	if err := be.Resume(context.Background(), "try"); err == nil || !strings.Contains(err.Error(), "audit_unavailable") {
		t.Fatalf("resume under the latch: %v, want a refusal naming audit_unavailable", err)
	}
}

// TestEditedEventStartsHalted: one byte of a stored event edited in the file (a broken chain)
// starts the session HALTED audit_unavailable naming that event, and no order goes (today: it
// trades).
func TestEditedEventStartsHalted(t *testing.T) {
	home := fastHome(t, "")
	for _, args := range [][]string{{"init"}, {"halt", "--reason", "MARKER-ONE"}, {"resume", "--reason", "MARKER-TWO"}} {
		if _, e, code := run(t, home, "", args...); code != 0 {
			t.Fatalf("%v: %s", args, e)
		}
	}
	editStoredText(t, home, "MARKER-TWO")
	out, errOut, code := runLive(t, home, nil, "run", "--headless", "--agent", "replay", "--script", tenOrders(t), "--for", "10s")
	if code != exitFailure || !strings.Contains(errOut, "audit chain broken at event 3") || !strings.Contains(errOut, "first bad event 3") {
		t.Fatalf("run on an edited chain: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if !strings.Contains(out, "orders placed 0") {
		t.Fatalf("orders went out on a broken chain:\n%s", out)
	}
}
