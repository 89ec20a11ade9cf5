package faults

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"cockpit/live/counter"
)

// TestFourProcessesNeverExceedTheCap: four processes send orders on one broker at once — one
// counter file, one journal, one submit lock — with a cap of 10 a day and 32 decisions between
// them: at most 10 are accepted, every acceptance is journaled, and the counter file never
// reads more than the cap.
func TestFourProcessesNeverExceedTheCap(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	const cap = 10
	root := durableRoot(t, roomyMandate("10", ""))
	var outs []*bytes.Buffer
	var waits []func() error
	for range 4 {
		cmd := helper("TestHelperGateProcess", "COCKPIT_FAULTS_ROOT="+root.Dir(), "COCKPIT_FAULTS_ORDERS=8")
		var b bytes.Buffer
		cmd.Stdout, cmd.Stderr = &b, &b
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		outs, waits = append(outs, &b), append(waits, cmd.Wait)
	}
	accepted := 0
	for i, wait := range waits {
		if err := wait(); err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, outs[i])
		}
		accepted += strings.Count(outs[i].String(), "accepted ")
	}
	if accepted != cap { // 32 decisions: the cap is reached, never passed
		t.Fatalf("%d orders accepted across 4 processes, want exactly the cap of %d", accepted, cap)
	}
	db := openStore(t, root)
	defer db.Close()
	n, err := db.AcceptedOrders(ctx, "paper", time.Now())
	if err != nil || n != accepted {
		t.Fatalf("journal counts %d (%v), the processes saw %d accepted", n, err, accepted)
	}
	if c := counter.ReadDailyCount(root, "paper", time.Now()); c > cap {
		t.Fatalf("counter file reads %d, over the cap of %d", c, cap)
	}
	if d, den := counter.DailyCount(ctx, root, db, "paper", time.Now()); den != nil || d != accepted {
		t.Fatalf("the gate's count %d (%v), want %d", d, den, accepted)
	}
}
