package mcpbroker_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"cockpit/live/mcpbroker"
	"cockpit/live/redact"
)

// shellServer is an Endpoint whose command is a shell script (the tools it runs by full path).
func shellServer(t *testing.T, script string, env map[string]string) mcpbroker.Endpoint {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	var pass []string
	for k := range env {
		pass = append(pass, k)
	}
	return mcpbroker.Endpoint{Command: []string{sh, "-c", script}, EnvPass: pass, Getenv: func(k string) string { return env[k] }}
}

// gone reports whether pid no longer runs (absent, or a zombie nobody reaped yet).
func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

// TestStdioEndsProcessGroup: a stdio server that leaves a child of its own behind (as npx
// leaves its node) has that child ended with it when the connection closes.
func TestStdioEndsProcessGroup(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	pidFile := filepath.Join(t.TempDir(), "grandchild.pid")
	// The grandchild ignores the closed stdin and outlives its parent, which exits at EOF.
	ep := shellServer(t, sleep+" 300 </dev/null >/dev/null 2>&1 & echo $! > "+pidFile+"; read line; exit 0", nil)
	tr, err := ep.Transport()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	for range 500 { // the shell writes the file right after it starts
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if pid <= 0 {
		t.Fatal("the server never started its child")
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	conn.Close()
	if !gone(pid) {
		t.Errorf("the server's child %d still runs after the connection closed, want it ended with its process group", pid)
	}
}

// TestConnectShowsServerStderr: a server that says why it cannot start and exits surfaces its
// last words and exit status in the connect error, redacted and free of control characters,
// and hands them to OnExit (the session logs them).
func TestConnectShowsServerStderr(t *testing.T) {
	const secret = "sk-live-0123456789abcdef"
	forget := redact.RegisterSecret(secret)
	defer forget()
	ep := shellServer(t, `echo "starting" >&2; printf 'bad key %s\033[2J\n' "$KEY" >&2; echo "boom: missing API key" >&2; exit 3`,
		map[string]string{"KEY": secret})
	var mu sync.Mutex
	var exits []string
	ep.OnExit = func(clean bool, diag string) {
		mu.Lock()
		if clean {
			diag = "clean: " + diag
		}
		exits = append(exits, diag)
		mu.Unlock()
	}
	tr, err := ep.Transport()
	if err != nil {
		t.Fatal(err)
	}
	_, err = mcpbroker.Connect(context.Background(), tr, mcpbroker.Options{Key: "ib", Profile: mcpbroker.ProfileFor("alpaca", "ib"), Timeout: 20 * time.Second})
	if err == nil {
		t.Fatal("Connect succeeded, want the server's failure")
	}
	msg := err.Error()
	t.Logf("connect error: %s", msg)
	for _, want := range []string{"boom: missing API key", "exit status 3", "starting"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, secret) || strings.ContainsRune(msg, '\x1b') || strings.Contains(msg, "\n") {
		t.Errorf("error %q carries the secret, a control character or a line break", msg)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(exits) != 1 || !strings.Contains(exits[0], "boom: missing API key") || strings.Contains(exits[0], secret) || strings.HasPrefix(exits[0], "clean") {
		t.Errorf("OnExit got %q, want one unclean exit with the redacted stderr tail", exits)
	}
}
