package gate_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"cockpit/live/counter"
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
	wait := raceFleet(t, root, 4)
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
	wait(&total)
	close(done)
	n := <-deleted
	if total.Forwarded != 5 {
		t.Fatalf("%d orders forwarded across 4 processes with the lock file deleted %d times, want exactly 5 (denied %v)",
			total.Forwarded, n, total.Denied)
	}
	if got := counter.ReadDailyCount(root, "paper", time.Now()); got != 5 {
		t.Errorf("counter reads %d, want 5", got)
	}
	t.Logf("forwarded 5; lock file deleted %d times; denied %v", n, total.Denied)
}
