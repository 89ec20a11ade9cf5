package counter

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/livetest"
)

func TestReadDailyCount(t *testing.T) {
	cases := []struct {
		name, file string
		want       int
	}{
		{"today", `{"date": "2026-06-01", "count": 3}`, 3},
		{"other day", `{"date": "2026-05-31", "count": 3}`, 0},
		{"future day", `{"date": "2026-06-02", "count": 3}`, 0},
		{"corrupt", `{oops`, 0},
		{"not an object", `[1]`, 0},
		{"negative", `{"date": "2026-06-01", "count": -3}`, 0},
		{"float truncates", `{"date": "2026-06-01", "count": 4.9}`, 4},
		{"bool", `{"date": "2026-06-01", "count": true}`, 1},
		{"int string", `{"date": "2026-06-01", "count": " 7 "}`, 7},
		{"float string", `{"date": "2026-06-01", "count": "4.5"}`, 0},
		{"NaN", `{"date": "2026-06-01", "count": NaN}`, 0},
		{"huge", `{"date": "2026-06-01", "count": 99999999999999999999}`, maxCount},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := livetest.Root(t)
			path := root.CounterPath("paper")
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(c.file), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := ReadDailyCount(root, "paper", livetest.Epoch); got != c.want {
				t.Fatalf("ReadDailyCount = %d, want %d", got, c.want)
			}
		})
	}
	if got := ReadDailyCount(livetest.Root(t), "paper", livetest.Epoch); got != 0 {
		t.Fatalf("missing file reads %d, want 0", got)
	}
}

func TestIncrementDailyCountRollsOver(t *testing.T) {
	root := livetest.Root(t)
	for want := 1; want <= 3; want++ {
		n, err := IncrementDailyCount(root, "paper", livetest.Epoch)
		if err != nil || n != want {
			t.Fatalf("increment = %d, %v; want %d", n, err, want)
		}
	}
	next := livetest.Epoch.Add(9*time.Hour + time.Minute) // past UTC midnight
	if got := ReadDailyCount(root, "paper", next); got != 0 {
		t.Fatalf("next day reads %d, want 0", got)
	}
	n, _ := IncrementDailyCount(root, "paper", next)
	data, _ := os.ReadFile(root.CounterPath("paper"))
	if n != 1 || string(data) != `{"date": "2026-06-02", "count": 1}` {
		t.Fatalf("after rollover: %d, %s", n, data)
	}
}

func TestSubmitLockInProcess(t *testing.T) {
	root := livetest.Root(t)
	l, err := TrySubmitLock(root, "paper")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TrySubmitLock(root, "paper"); !errors.Is(err, ErrLockBusy) {
		t.Fatalf("second lock: %v, want ErrLockBusy", err)
	}
	other, err := TrySubmitLock(root, "alpaca")
	if err != nil {
		t.Fatalf("locks are per broker: %v", err)
	}
	other.Unlock()
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	l2, err := TrySubmitLock(root, "paper")
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	l2.Unlock()
	if _, err := TrySubmitLock(root, "../x"); err == nil || errors.Is(err, ErrLockBusy) {
		t.Fatalf("path-shaped broker: %v", err)
	}
}

// TestSubmitLockAcrossProcesses holds the lock in a child process: the parent sees it busy,
// and gets it once the child is killed (the kernel releases flocks of dead processes).
func TestSubmitLockAcrossProcesses(t *testing.T) {
	if dir := os.Getenv("COCKPIT_TEST_HOLD_LOCK"); dir != "" {
		root, _ := live.NewRoot(dir)
		if _, err := TrySubmitLock(root, "paper"); err != nil {
			fmt.Println("lock failed:", err)
			os.Exit(3)
		}
		fmt.Println("locked")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	root := livetest.Root(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestSubmitLockAcrossProcesses$")
	cmd.Env = append(os.Environ(), "COCKPIT_TEST_HOLD_LOCK="+root.Dir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	if string(buf[:n]) != "locked\n" {
		t.Fatalf("child said %q", buf[:n])
	}
	if _, err := TrySubmitLock(root, "paper"); !errors.Is(err, ErrLockBusy) {
		t.Fatalf("lock held by another process: %v, want ErrLockBusy", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	l, err := TrySubmitLock(root, "paper")
	if err != nil {
		t.Fatalf("after the holder died: %v", err)
	}
	l.Unlock()
}
