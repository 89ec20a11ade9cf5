package counter

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"cockpit/live"
	"cockpit/live/livetest"
)

// TestNoteDailyCountReportsAFailedWrite: a write of the counter that fails (a full disk, a
// quota, a file size limit) is an error, and the old count stays in place: atomicfile.Replace
// dropped the write's error (a shadowed err) and renamed the truncated temporary file over
// the good counter, which readers without a lock then read as corrupt.
//
// The write is made to fail with RLIMIT_FSIZE in a child process (EFBIG after a few bytes).
func TestNoteDailyCountReportsAFailedWrite(t *testing.T) {
	if dir := os.Getenv("COCKPIT_TEST_COUNTER_ROOT"); dir != "" {
		// Child: a file size limit smaller than the counter's JSON.
		lim := syscall.Rlimit{Cur: 12, Max: 12}
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
			fmt.Println("SETUP", err)
			return
		}
		err := NoteDailyCount(live.Root(dir), "paper", livetest.Epoch, 8)
		fmt.Printf("RESULT %v\n", err)
		return
	}
	root := livetest.Root(t)
	if err := NoteDailyCount(root, "paper", livetest.Epoch, 7); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoteDailyCountReportsAFailedWrite$", "-test.count=1")
	cmd.Env = append(os.Environ(), "COCKPIT_TEST_COUNTER_ROOT="+root.Dir())
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "SETUP") || !strings.Contains(string(out), "RESULT") {
		t.Fatalf("child: %v\n%s", err, out)
	}
	data, _ := os.ReadFile(root.CounterPath("paper"))
	_, ok, why := counterFile(root, "paper", livetest.Epoch)
	if strings.Contains(string(out), "RESULT <nil>") || !ok {
		t.Errorf("NoteDailyCount with a write that fails: child says %q; counter file now %q (ok %v: %s); want an error and the old count (7) left in place",
			strings.TrimSpace(string(out)), data, ok, why)
	}
}
