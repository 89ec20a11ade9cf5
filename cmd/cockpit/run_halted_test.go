package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/halt"
)

// ordersScript is a replay script of n small market buys.
func ordersScript(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"t": %d, "tool": "place_order", "args": {"symbol": "AAPL", "side": "buy", "notional": %d, "reason": "r"}}`+"\n", i, 100+i)
	}
	path := filepath.Join(t.TempDir(), "orders.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRunEndedHaltedExitsNonZero is issue 27 item 6's first repro and the exit status: a
// headless run that ends HALTED exits 1 and says why on stderr, whether the halt watcher
// could not watch (as `chmod 0300 live` makes it for a user, or every inotify instance taken;
// hooks here, root ignores mode bits) or a HALT file stood (today each exits 0, and with the
// watcher failing the first orders were placed). No order is placed in any case.
func TestRunEndedHaltedExitsNonZero(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, home string) (restore func())
		want    string
	}{
		{"ErrWatcher", func(t *testing.T, home string) func() {
			return halt.FailWatches(func(string) error { return errors.New("permission denied") })
		}, "halt watcher error: watch"},
		{"ErrNoInotify", func(t *testing.T, home string) func() {
			return halt.FailFileWatcher(errors.New("too many open files"))
		}, "start file watcher: too many open files"},
		{"ErrHaltFile", func(t *testing.T, home string) func() {
			if _, err := halt.Trip(live.Root(home), live.HaltSentinel, live.GlobalScope, "cli", "maintenance", time.Now()); err != nil {
				t.Fatal(err)
			}
			return func() {}
		}, "maintenance"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := fastHome(t, "")
			if _, e, code := runLive(t, home, nil, "init"); code != 0 {
				t.Fatal(e)
			}
			restore := tt.prepare(t, home)
			out, errOut, code := runLive(t, home, nil, "run", "--headless", "--agent", "replay", "--script", ordersScript(t, 5), "--for", "3s")
			restore()
			if code != exitFailure {
				t.Errorf("exit %d, want %d\nstdout %s\nstderr %s", code, exitFailure, out, errOut)
			}
			if !strings.Contains(errOut, "ended HALTED") || !strings.Contains(errOut, tt.want) {
				t.Errorf("stderr does not say the run ended HALTED (%s):\n%s", tt.want, errOut)
			}
			if !strings.Contains(out, "orders placed 0") {
				t.Errorf("orders went out while halted:\n%s", out)
			}
		})
	}
}
