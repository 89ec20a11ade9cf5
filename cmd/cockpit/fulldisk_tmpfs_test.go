//go:build linux

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/halt"
)

// tmpfsHome mounts a 20 MB tmpfs for the test (root only; it skips elsewhere) and returns a
// fast runtime root inside it and the mount point.
func tmpfsHome(t *testing.T) (home, mnt string) {
	t.Helper()
	if testing.Short() {
		t.Skip("mounts a tmpfs")
	}
	mnt = t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=20m"); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): the injected TestFullDiskHaltSurvivesARestart covers it", err)
	}
	t.Cleanup(func() { syscall.Unmount(mnt, syscall.MNT_DETACH) })
	home = filepath.Join(mnt, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := "[agents.replay]\nspeed = 1.0\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, mnt
}

// fill writes a file under dir until the file system has no room left.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, size := range []int{1 << 20, 4096, 1} {
		chunk := make([]byte, size)
		for {
			if _, err := f.Write(chunk); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatal(err)
				}
				break
			}
		}
	}
	return path
}

// lateOrders is a replay script that reads the positions, then 3 s later sends five market
// buys: room for a test to fill the disk in between.
func lateOrders(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"t": 0, "tool": "get_positions", "args": {}}` + "\n")
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(&b, `{"t": %d.%d, "tool": "place_order", "args": {"symbol": "AAPL", "side": "buy", "notional": %d, "reason": "r"}}`+"\n", 3, i, 100+i)
	}
	path := filepath.Join(t.TempDir(), "late.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFullTmpfsHaltSurvivesARestart is issue 27 item 6's disk-full repro on a real full disk:
// a 20 MB tmpfs fills up while a run waits to send its orders. The run ends HALTED
// audit_unavailable with the global HALT on disk (no new file fits: the reserve is renamed
// into place); after the space is freed a restart with three orders places none and exits 1.
func TestFullTmpfsHaltSurvivesARestart(t *testing.T) {
	home, mnt := tmpfsHome(t)
	if _, e, code := runLive(t, home, nil, "init"); code != 0 {
		t.Fatal(e)
	}
	var out, errOut syncBuffer
	a := NewApp(strings.NewReader(""), &out, &errOut)
	a.Getenv = func(k string) string {
		if k == "COCKPIT_HOME" {
			return home
		}
		return ""
	}
	done := make(chan int)
	script := lateOrders(t)
	go func() {
		done <- a.Run([]string{"run", "--headless", "--agent", "replay", "--script", script, "--for", "30s"})
	}()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), "call    get_positions") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	filler := fill(t, mnt)
	code := <-done
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if code != exitFailure || !strings.Contains(errOut.String(), "HALTED audit_unavailable") {
		t.Fatalf("run on a full tmpfs: exit %d, want %d and HALTED audit_unavailable\nstdout %s\nstderr %s", code, exitFailure, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "orders placed 0") {
		t.Errorf("orders went out on a full disk:\n%s", out.String())
	}
	if a, _ := halt.ReadSentinel(live.Root(home), live.HaltSentinel, live.GlobalScope); a == nil || !strings.HasPrefix(a.Reason, "audit_unavailable") {
		t.Errorf("global HALT after the run: %+v, want one saying audit_unavailable", a)
	}
	o2, e2, code := runLive(t, home, nil, "run", "--headless", "--agent", "replay", "--script", ordersScript(t, 3), "--for", "3s")
	if code != exitFailure || !strings.Contains(o2, "orders placed 0") || !strings.Contains(e2, "ended HALTED") {
		t.Errorf("restart after space was freed: exit %d, want %d, no order and HALTED\nstdout %s\nstderr %s", code, exitFailure, o2, e2)
	}
	checkBookAgreesWithJournal(t, home)
	t.Logf("the full run stopped with %s", strings.TrimSpace(errOut.String()))
}
