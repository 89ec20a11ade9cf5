package sandbox

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestLandlockBlocksEverySocket is issue 10 item 8: Landlock's network rules cover TCP only,
// so UDP got out. Under the Landlock backend no socket can be created at all (UDP, Unix,
// TCP), while the same commands work without a sandbox; Describe says so.
func TestLandlockBlocksEverySocket(t *testing.T) {
	l := Landlock{Self: os.Args[0]}
	if err := l.Probe(context.Background()); err != nil {
		if os.Getenv("COCKPIT_REQUIRE_LANDLOCK") != "" {
			t.Fatalf("landlock is required here: %v", err)
		}
		t.Skipf("landlock unusable: %v", err)
	}
	ctx := context.Background()
	type check struct {
		name string
		argv []string
	}
	checks := []check{{"udp via bash", []string{"bash", "-c", "echo x > /dev/udp/127.0.0.1/9"}}}
	if py := "/usr/bin/python3"; fileExists(py) { // a system one: Landlock only opens /usr and friends
		for _, fam := range []string{"AF_INET, socket.SOCK_DGRAM", "AF_INET6, socket.SOCK_DGRAM", "AF_UNIX, socket.SOCK_STREAM", "AF_INET, socket.SOCK_STREAM"} {
			checks = append(checks, check{"python socket " + fam, []string{py, "-c", "import socket; socket.socket(socket." + fam + ")"}})
		}
	}
	for _, c := range checks {
		if env := Run(ctx, None{}, spec(t, c.argv...)); env.Status != "ok" {
			t.Logf("%s: the control fails without a sandbox (%s %s); skipped", c.name, env.Stderr, env.Error)
			continue
		}
		env := Run(ctx, l, spec(t, c.argv...))
		if env.Status == "ok" {
			t.Errorf("%s: ran under landlock, want the socket refused", c.name)
		} else if !strings.Contains(strings.ToLower(env.Stderr), "not permitted") {
			t.Errorf("%s: failed with %q, want EPERM from socket(2)", c.name, env.Stderr)
		}
	}
	if d := l.Describe(); !strings.Contains(d, "no sockets") {
		t.Errorf("Describe = %q, want it to say no sockets", d)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
