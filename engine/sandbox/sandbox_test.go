package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestMain lets this test binary act as the Landlock helper, as the cockpit binary does.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == HelperArg {
		if err := RunHelper(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(126)
	}
	os.Exit(m.Run())
}

func TestDecode(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"hi\n", 10, "hi\n"},
		{"\xff\xfe", 10, "\ufffd\ufffd"},
		{"a\xe2\x82b", 10, "a\ufffdb"},             // a truncated 3-byte sequence is one maximal subpart
		{"\xed\xa0\x80", 10, "\ufffd\ufffd\ufffd"}, // a surrogate: ED A0 is not a valid prefix
		{"\xf0\x9f\x98", 10, "\ufffd"},
		{"héllo wörld", 4, "héll"},
	}
	for _, tt := range tests {
		if got := decode([]byte(tt.in), tt.max); got != tt.want {
			t.Errorf("decode(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

func spec(t *testing.T, argv ...string) Spec {
	ws := t.TempDir()
	return Spec{Argv: argv, Dir: ws, Workspace: ws, Env: []string{"PATH=/usr/bin:/bin", "COCKPIT_MARK=1"}, Timeout: 20 * time.Second}
}

func TestRunNone(t *testing.T) {
	ctx := context.Background()
	env := Run(ctx, None{}, spec(t, "sh", "-c", "echo out; echo err >&2; exit 3"))
	if env.Status != "error" || env.ExitCode == nil || *env.ExitCode != 3 || env.Stdout != "out\n" || env.Stderr != "err\n" {
		t.Errorf("envelope %+v", env)
	}
	s := spec(t, "sh", "-c", "pwd; env | sort")
	env = Run(ctx, None{}, s)
	want := s.Dir + "\nCOCKPIT_MARK=1\nPATH=/usr/bin:/bin\nPWD=" + s.Dir + "\n"
	if env.Stdout != want {
		t.Errorf("cwd and env:\n%q\nwant\n%q", env.Stdout, want)
	}
	big := Run(ctx, None{}, Spec{Argv: []string{"sh", "-c", "head -c 200000 /dev/zero | tr '\\0' x"}, Dir: s.Dir, Workspace: s.Dir,
		Env: s.Env, MaxOutput: 50_000, Timeout: 10 * time.Second})
	if len(big.Stdout) != 50_000 {
		t.Errorf("output kept %d code points, want 50000", len(big.Stdout))
	}
	if env := Run(ctx, None{}, spec(t, "no-such-command-xyz")); env.Status != "error" || !strings.HasPrefix(env.Error, "Could not start command:") {
		t.Errorf("missing command: %+v", env)
	}
}

// TestTimeoutKillsTheGroup: a timeout kills the command's children too.
func TestTimeoutKillsTheGroup(t *testing.T) {
	s := spec(t, "sh", "-c", "sleep 30 & echo $! > child; wait")
	s.Timeout = 300 * time.Millisecond
	start := time.Now()
	env := Run(context.Background(), None{}, s)
	if env.ErrorCode != "tool_timeout" || env.Error != "Command timed out after 0s" && !strings.HasPrefix(env.Error, "Command timed out") {
		t.Fatalf("envelope %+v", env)
	}
	if time.Since(start) > 6*time.Second {
		t.Errorf("took %s", time.Since(start))
	}
	data, _ := os.ReadFile(filepath.Join(s.Dir, "child"))
	pid := strings.TrimSpace(string(data))
	if pid == "" {
		t.Fatal("no child pid")
	}
	time.Sleep(100 * time.Millisecond)
	if _, err := os.Stat("/proc/" + pid); err == nil {
		st, _ := os.ReadFile("/proc/" + pid + "/stat")
		if !strings.Contains(string(st), ") Z ") {
			t.Errorf("child %s survived the timeout: %s", pid, st)
		}
	}
}

// confinement runs the acceptance checks inside backend b: no /etc/shadow, no file outside
// the workspace (read or write), no TCP connection out, while the workspace itself works and
// the environment and directory are exactly the ones given.
func confinement(t *testing.T, b Backend) {
	t.Helper()
	ctx := context.Background()
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	os.WriteFile(secret, []byte("TOPSECRET"), 0o644)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	// The control: without a sandbox the same connection succeeds.
	if env := Run(ctx, None{}, spec(t, "bash", "-c", fmt.Sprintf("echo > /dev/tcp/127.0.0.1/%d", port))); env.Status != "ok" {
		t.Skipf("bash /dev/tcp unavailable for the control: %+v", env)
	}
	checks := []struct {
		name string
		cmd  string
		ok   bool
	}{
		{"read /etc/shadow", "cat /etc/shadow", false},
		{"read outside the workspace", "cat " + secret, false},
		{"write outside the workspace", "echo x > " + filepath.Join(outside, "new.txt"), false},
		{"tcp connect", fmt.Sprintf("echo > /dev/tcp/127.0.0.1/%d", port), false},
		{"write the workspace", "echo hi > inside.txt && cat inside.txt", true},
		{"write /dev/null", "echo hi > /dev/null", true},
	}
	for _, c := range checks {
		env := Run(ctx, b, spec(t, "bash", "-c", c.cmd))
		if (env.Status == "ok") != c.ok {
			t.Errorf("%s: %s: status %s (stdout %q stderr %q err %q), want ok=%v", b.Name(), c.name, env.Status, env.Stdout, env.Stderr, env.Error, c.ok)
		}
		if strings.Contains(env.Stdout, "TOPSECRET") {
			t.Errorf("%s: the secret leaked", b.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
		t.Errorf("%s: a file was written outside the workspace", b.Name())
	}
	s := spec(t, "sh", "-c", "pwd; env | grep -v '^PWD=\\|^SHLVL=\\|^_=' | sort")
	env := Run(ctx, b, s)
	lines := strings.Split(strings.TrimSpace(env.Stdout), "\n")
	if len(lines) == 0 || lines[0] != s.Dir {
		t.Errorf("%s: cwd %q, want %q (%+v)", b.Name(), lines, s.Dir, env)
	}
	got := append([]string(nil), lines[1:]...)
	sort.Strings(got)
	if strings.Join(got, ",") != "COCKPIT_MARK=1,PATH=/usr/bin:/bin" {
		t.Errorf("%s: environment %v, want exactly COCKPIT_MARK and PATH", b.Name(), got)
	}
}

func TestBwrapConfines(t *testing.T) {
	b := Bwrap{}
	if err := b.Probe(context.Background()); err != nil {
		if os.Getenv("COCKPIT_REQUIRE_BWRAP") != "" {
			t.Fatalf("bwrap is required here: %v", err)
		}
		t.Skipf("bwrap unusable: %v (install the bubblewrap package)", err)
	}
	confinement(t, b)
}

func TestLandlockConfines(t *testing.T) {
	l := Landlock{Self: os.Args[0]}
	if err := l.Probe(context.Background()); err != nil {
		if os.Getenv("COCKPIT_REQUIRE_LANDLOCK") != "" {
			t.Fatalf("landlock is required here: %v", err)
		}
		t.Skipf("landlock unusable: %v", err)
	}
	confinement(t, l)
	if d := l.Describe(); !strings.Contains(d, "seccomp denies socket(2)") {
		t.Errorf("Describe at ABI %d does not say how UDP is kept in: %s", ABI(), d)
	}
}

// TestArgvBuilders pins the command lines of the backends that may be absent here.
func TestArgvBuilders(t *testing.T) {
	s := Spec{Argv: []string{"ls", "-l"}, Dir: "/ws/sub", Workspace: "/ws", Env: []string{"PATH=/usr/bin"}}
	fj := strings.Join(Firejail{Forbidden: []string{"/root/.ssh"}}.Args("firejail", s), " ")
	for _, want := range []string{"--net=none", "--read-only=/", "--read-write=/ws", "--blacklist=/root/.ssh", "--seccomp", "-- ls -l"} {
		if !strings.Contains(fj, want) {
			t.Errorf("firejail argv %q lacks %q", fj, want)
		}
	}
	dk := strings.Join(Docker{}.Args("docker", s), " ")
	for _, want := range []string{"run --rm --network none --read-only", "-v /ws:/ws:rw", "-w /ws/sub", "-e PATH=/usr/bin", "debian:bookworm-slim ls -l"} {
		if !strings.Contains(dk, want) {
			t.Errorf("docker argv %q lacks %q", dk, want)
		}
	}
	bw := strings.Join(Bwrap{}.Args("bwrap", s), " ")
	for _, want := range []string{"--unshare-all", "--clearenv", "--bind /ws /ws", "--chdir /ws/sub", "--setenv PATH /usr/bin", "-- ls -l"} {
		if !strings.Contains(bw, want) {
			t.Errorf("bwrap argv %q lacks %q", bw, want)
		}
	}
}

// TestChooseFailsClosed: an unusable named backend is an error, never a silent fallback.
func TestChooseFailsClosed(t *testing.T) {
	ctx := context.Background()
	if _, err := Choose(ctx, "docker", []Backend{Docker{Path: "/nonexistent/docker"}}); err == nil {
		t.Error("an unusable docker was chosen")
	}
	if b, err := Choose(ctx, "none", nil); err != nil || b.Name() != "none" {
		t.Errorf("none: %v %v", b, err)
	}
	if _, err := Choose(ctx, "auto", []Backend{Docker{Path: "/nonexistent/docker"}, Firejail{Path: "/nonexistent/firejail"}}); err == nil {
		t.Error("auto with nothing usable chose something")
	}
}
