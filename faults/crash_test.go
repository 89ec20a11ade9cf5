package faults

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/counter"
	"cockpit/live/gate"
	"cockpit/store"
)

// TestHelperGateProcess is not a test: it is the body of the gate processes below. It sends
// orders through the durable gate until killed (or COCKPIT_FAULTS_ORDERS are decided) and
// prints "accepted <client order id>" for each acceptance once Submit has returned.
func TestHelperGateProcess(t *testing.T) {
	dir := os.Getenv("COCKPIT_FAULTS_ROOT")
	if dir == "" {
		t.Skip("helper process only")
	}
	root := live.Root(dir)
	db := openStore(t, root)
	g := gateOn(db, root)
	p := newPaper(t, nil)
	in := notional("100")
	var n int
	fmt.Sscan(os.Getenv("COCKPIT_FAULTS_ORDERS"), &n)
	for i := 0; n == 0 || i < n; i++ {
		d := g.Submit(ctx, gate.Submission{Broker: p, Intent: &in, Actor: live.Agent("crash", "s")})
		switch {
		case d.AuditErr != nil:
			fmt.Println("audit-error", d.AuditErr)
			os.Exit(4)
		case d.Outcome == live.OutcomeAccepted:
			fmt.Println("accepted", d.ClientOrderID)
		case d.Reason == live.ReasonLockBusy:
			i-- // another process held the lock: not a decision on the count
		default:
			fmt.Println("refused", d.Reason)
		}
	}
	db.Close()
	os.Exit(0)
}

// TestGateCrashAtRandomPoints SIGKILLs a process sending orders through the durable gate 20
// times at random moments (TestCrashAtRandomPoints in store does it to a bare appender): the
// database opens and passes the start-up check (chain intact, anchor never ahead), and every
// order the process saw accepted is journaled accepted, has its order_placed record, and is
// in today's count.
func TestGateCrashAtRandomPoints(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	root := durableRoot(t, roomyMandate("1000000", ""))
	rng := rand.New(rand.NewSource(20261201))
	var acked []string
	for round := range 20 {
		cmd := helper("TestHelperGateProcess", "COCKPIT_FAULTS_ROOT="+root.Dir())
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
		var seen []string
		select {
		case l, ok := <-lines:
			if !ok {
				cmd.Wait()
				t.Fatalf("round %d: the gate process ended before deciding anything", round)
			}
			seen = append(seen, l)
		case <-time.After(time.Minute):
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			t.Fatalf("round %d: no decision within a minute", round)
		}
		time.Sleep(time.Duration(rng.Intn(60)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		for l := range lines {
			seen = append(seen, l)
		}
		for _, l := range seen {
			switch {
			case strings.HasPrefix(l, "accepted "):
				acked = append(acked, strings.TrimPrefix(l, "accepted "))
			case strings.HasPrefix(l, "audit-error"):
				t.Fatalf("round %d: %s", round, l)
			}
		}
		checkAfterCrash(t, round, root, acked)
	}
	if len(acked) < 20 {
		t.Fatalf("only %d orders accepted over 20 rounds: the test did not exercise much", len(acked))
	}
	t.Logf("20 kills, %d accepted orders, all journaled, recorded and counted", len(acked))
}

func checkAfterCrash(t *testing.T, round int, root live.Root, acked []string) {
	t.Helper()
	db := openStore(t, root)
	defer db.Close()
	if in := db.CheckIntegrity(ctx); in.Problem != "" {
		t.Fatalf("round %d: start-up check after SIGKILL: %s", round, in.Problem)
	}
	entries, err := db.JournalEntries(ctx, "paper")
	if err != nil {
		t.Fatal(err)
	}
	state := map[string]live.JournalState{}
	for _, e := range entries {
		state[e.ClientOrderID] = e.State
	}
	for _, id := range acked {
		if state[id] != live.JournalAccepted {
			t.Fatalf("round %d: accepted order %s is %q in the journal, want accepted", round, id, state[id])
		}
		evs, err := db.Events(ctx, store.Filter{OrderID: id, Type: live.KindOrderPlaced})
		if err != nil || len(evs) != 1 {
			t.Fatalf("round %d: accepted order %s has %d order_placed records (%v), want 1", round, id, len(evs), err)
		}
	}
	n, den := counter.DailyCount(ctx, root, db, "paper", time.Now())
	if den != nil || n < len(acked) {
		t.Fatalf("round %d: today's count %d (%v), want at least the %d accepted orders", round, n, den, len(acked))
	}
}
