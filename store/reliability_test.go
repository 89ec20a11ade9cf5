package store

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/gate"
	"cockpit/live/jsonv"
	"cockpit/live/livetest"
	"cockpit/live/redact"
	"cockpit/live/toolbroker"
	"cockpit/live/vibe"
)

// TestHelperWriter is not a test: it is the body of the writer processes below.
func TestHelperWriter(t *testing.T) {
	path := os.Getenv("COCKPIT_STORE_WRITER")
	if path == "" {
		t.Skip("helper process only")
	}
	n, _ := strconv.Atoi(os.Getenv("COCKPIT_STORE_WRITES"))
	db, err := Open(path)
	if err != nil {
		fmt.Println("open error:", err)
		os.Exit(3)
	}
	ctx := context.Background()
	for i := 0; n == 0 || i < n; i++ {
		e, err := db.Append(ctx, Event{Type: "test", ActorKind: "system", Summary: fmt.Sprintf("pid %d write %d", os.Getpid(), i),
			Payload: fmt.Sprintf(`{"i":%d,"pid":%d}`, i, os.Getpid())})
		if err != nil {
			fmt.Println("append error:", err)
			os.Exit(4)
		}
		// An event is acknowledged once Append returned: only then is it printed.
		fmt.Printf("%d %s\n", e.Seq, e.Hash)
	}
	os.Exit(0)
}

func writer(t *testing.T, path string, n int) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$", "-test.count=1")
	cmd.Env = append(os.Environ(), "COCKPIT_STORE_WRITER="+path, "COCKPIT_STORE_WRITES="+strconv.Itoa(n))
	return cmd
}

// TestCrashAtRandomPoints SIGKILLs a writing process 20 times at random moments: the database
// opens, the chain verifies, and every event the writer saw acknowledged is there.
func TestCrashAtRandomPoints(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := filepath.Join(t.TempDir(), "cockpit.db")
	rng := rand.New(rand.NewSource(20261130))
	acked := map[int64]string{}
	for round := 0; round < 20; round++ {
		cmd := writer(t, path, 0)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1<<16)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// Kill at a random moment after the writer's first acknowledgement, so a slow start on
		// a loaded machine still leaves something acknowledged to check.
		var seen []string
		select {
		case l, ok := <-lines:
			if !ok {
				cmd.Wait()
				t.Fatalf("round %d: the writer ended before acknowledging anything", round)
			}
			seen = append(seen, l)
		case <-time.After(time.Minute):
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			t.Fatalf("round %d: no acknowledgement within a minute", round)
		}
		time.Sleep(time.Duration(rng.Intn(40)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		for l := range lines {
			seen = append(seen, l)
		}
		for _, l := range seen {
			var seq int64
			var hash string
			if _, err := fmt.Sscan(l, &seq, &hash); err != nil {
				t.Fatalf("round %d: writer said %q", round, l)
			}
			acked[seq] = hash
		}
		db, err := Open(path)
		if err != nil {
			t.Fatalf("round %d: reopen after SIGKILL: %v", round, err)
		}
		rep, err := db.Verify(context.Background(), nil)
		if err != nil || !rep.OK() {
			t.Fatalf("round %d: verify %+v %v", round, rep.Break, err)
		}
		for seq, hash := range acked {
			e, err := db.Event(context.Background(), seq)
			if err != nil || e.Hash != hash {
				t.Fatalf("round %d: acknowledged event %d lost or changed (%v)", round, seq, err)
			}
		}
		db.Close()
	}
	if len(acked) < 20 {
		t.Fatalf("only %d events acknowledged over 20 rounds: the test did not exercise much", len(acked))
	}
	t.Logf("20 kills, %d acknowledged events, chain intact", len(acked))
}

// TestTwoProcessesAppend: two processes append at once; no busy error reaches either, and
// the chain stays linear.
func TestTwoProcessesAppend(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := filepath.Join(t.TempDir(), "cockpit.db")
	db := mustOpen(t, path) // creates the schema before the race
	const each = 150
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for i := 0; i < 2; i++ {
		cmd := writer(t, path, each)
		var b bytes.Buffer
		cmd.Stdout, cmd.Stderr = &b, &b
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, &b)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer %d: %v\n%s", i, err, outs[i].String())
		}
		if strings.Contains(outs[i].String(), "error") {
			t.Fatalf("writer %d: %s", i, outs[i].String())
		}
	}
	rep, err := db.Verify(context.Background(), nil)
	if err != nil || !rep.OK() || rep.Events != 2*each {
		t.Fatalf("verify: %d events, break %+v, %v", rep.Events, rep.Break, err)
	}
}

// TestSecretsNeverReachTheDisk sends an order whose arguments and broker reply carry an API
// key, a bearer token and an account number through the gate with the store, the mirror and
// a redacting log attached, then greps every file.
func TestSecretsNeverReachTheDisk(t *testing.T) {
	const apiKey, bearer, account = "sk-live-9f8e7d6c5b4a39281706aaaa", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl", "5XX111222333"
	root := livetest.Root(t)
	db := mustOpen(t, filepath.Join(root.Dir(), "cockpit.db"))
	clock := livetest.NewClock(livetest.Epoch)
	livetest.Commit(t, root, "robinhood", "", clock.Now())
	logPath := filepath.Join(root.Dir(), "cockpit.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	log := slog.New(redact.Handler(slog.NewJSONHandler(logFile, nil)))
	mirror := &vibe.Mirror{Root: root}
	caller := &fixedCaller{reply: jsonv.ObjectOf("status", "ok", "order_id", "rh_1", "account_number", account,
		"echo", "Authorization: Bearer "+bearer)}
	g := &gate.Gate{Root: root, Now: clock.Now, Audit: live.MultiSink{db, mirror}, Journal: db, Mandates: livetest.Ledger(root),
		OnDecision: func(d gate.Decision) { log.Info("decision", "message", d.Message(), "error", "api_key="+apiKey) }}
	args := jsonv.ObjectOf("symbol", "AAPL", "side", "buy", "instrument_type", "equity", "notional_usd", jsonv.Number("100"),
		"api_key", apiKey, "account_number", account, "note", "token: "+bearer+" acct account_number="+account)
	tb := &toolbroker.Broker{Key: "robinhood", Profile: live.Robinhood(), Caller: caller, Now: clock.Now}
	d := g.Submit(context.Background(), gate.Submission{Broker: tb, Profile: live.Robinhood(), Tool: "place_equity_order", Args: args})
	if !d.Forwarded {
		t.Fatalf("the order was not forwarded: %s", d.Message())
	}
	if !jsonv.Equal(caller.args, args) {
		t.Fatal("the broker must still get the real arguments")
	}
	db.w.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	files, _ := filepath.Glob(filepath.Join(root.Dir(), "*"))
	more, _ := filepath.Glob(filepath.Join(root.LiveDir(), "*.jsonl"))
	files = append(files, more...)
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		checked++
		for _, s := range []string{apiKey, bearer, account} {
			if bytes.Contains(data, []byte(s)) {
				t.Fatalf("%s contains the secret %q", f, s)
			}
		}
	}
	if checked < 4 {
		t.Fatalf("only %d files checked: %v", checked, files)
	}
}

type fixedCaller struct {
	reply any
	args  *jsonv.Object
}

func (f *fixedCaller) CallTool(_ context.Context, name string, args *jsonv.Object) (any, error) {
	if strings.HasPrefix(name, "place") {
		f.args = args
		return f.reply, nil
	}
	if strings.Contains(name, "position") {
		return jsonv.ObjectOf("positions", []any{}), nil
	}
	return jsonv.ObjectOf("status", "ok"), nil
}
