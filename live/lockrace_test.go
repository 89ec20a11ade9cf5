package live_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/livetest"
)

// TestDailyCapUnderRaceWithLockDeletion is issue 10 item 4's race: 4 processes race orders at
// a cap of 5 while the lock file is deleted in a loop. Exactly 5 orders reach a broker.
func TestDailyCapUnderRaceWithLockDeletion(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	root := livetest.Root(t)
	doc := strings.Replace(livetest.MandateDoc, `"max_trades_per_day": 20`, `"max_trades_per_day": 5`, 1)
	livetest.Commit(t, root, "paper", doc, time.Now())
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for i := 0; i < 4; i++ {
		cmd := child(t, "race", root.Dir(), "COCKPIT_HELPER_GOROUTINES=2")
		var b strings.Builder
		cmd.Stdout = &b
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, &b)
	}
	done := make(chan struct{})
	deleted := make(chan int)
	go func() {
		n := 0
		for {
			select {
			case <-done:
				deleted <- n
				return
			default:
			}
			if os.Remove(root.LockPath("paper")) == nil {
				n++
			}
		}
	}()
	total := raceResult{Denied: map[string]int{}}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child %d: %v", i, err)
		}
		var r raceResult
		if err := json.Unmarshal([]byte(outs[i].String()), &r); err != nil {
			t.Fatalf("child %d said %q: %v", i, outs[i].String(), err)
		}
		total.Forwarded += r.Forwarded
		for k, v := range r.Denied {
			total.Denied[k] += v
		}
	}
	close(done)
	n := <-deleted
	if n := total.Denied["mandate_unverified"]; n > 0 {
		t.Fatalf("%d attempts denied mandate_unverified: a process raced without the committed mandate", n)
	}
	if total.Forwarded != 5 {
		t.Fatalf("%d orders forwarded across 4 processes with the lock file deleted %d times, want exactly 5 (denied %v)",
			total.Forwarded, n, total.Denied)
	}
	if got := live.ReadDailyCount(root, "paper", time.Now()); got != 5 {
		t.Errorf("counter reads %d, want 5", got)
	}
	t.Logf("forwarded 5; lock file deleted %d times; denied %v", n, total.Denied)
}
