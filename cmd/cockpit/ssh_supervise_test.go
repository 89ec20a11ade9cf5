package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/session"
	"cockpit/session/supervise"
)

// TestServeSSHSupervisesAnOwnedRoot: on a root whose account another process holds, serve-ssh
// serves a supervisor (it used to refuse to start), and a key's H there writes the HALT file and
// is audited as that key.
func TestServeSSHSupervisesAnOwnedRoot(t *testing.T) {
	home := t.TempDir()
	if _, errOut, code := run(t, home, "", "init"); code != exitOK {
		t.Fatalf("init: exit %d: %s", code, errOut)
	}
	release, err := lockPaper(live.Root(home), live.PaperBroker)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	a := NewApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	a.Getenv = func(k string) string {
		if k == "COCKPIT_HOME" {
			return home
		}
		return ""
	}
	tgt, err := a.sshBackend(home, "none")
	if err != nil {
		t.Fatalf("sshBackend on an owned root: %v", err)
	}
	defer tgt.close()
	if _, ok := tgt.be.(*supervise.Backend); !ok {
		t.Fatalf("backend = %T, want a supervisor", tgt.be)
	}
	if got := tgt.be.Snapshot(context.Background()).Supervising; got == "" {
		t.Error("the snapshot does not say it supervises")
	}
	ctx := session.WithOperator(context.Background(), "ssh:viewer@test")
	if err := tgt.be.Halt(ctx, "key H"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(live.Root(home).SentinelPath(live.HaltSentinel, "")); err != nil {
		t.Fatalf("no HALT file after H: %v", err)
	}
	out, _, code := run(t, home, "", "audit", "list", "--json", "--type", "halt_tripped")
	if code != exitOK || !strings.Contains(out, "ssh:viewer@test") {
		t.Errorf("audit list (exit %d) does not name ssh:viewer@test:\n%s", code, out)
	}
}

// TestServeSSHOwnsAsServeSSH: serve-ssh trading a free root says so in its owner row, so a
// supervisor reads "SUPERVISING serve-ssh …" (it said headless).
func TestServeSSHOwnsAsServeSSH(t *testing.T) {
	home := t.TempDir()
	if _, errOut, code := run(t, home, "", "init"); code != exitOK {
		t.Fatalf("init: exit %d: %s", code, errOut)
	}
	a := NewApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	a.Getenv = func(k string) string {
		if k == "COCKPIT_HOME" {
			return home
		}
		return ""
	}
	tgt, err := a.sshBackend(home, "none")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); tgt.run(ctx) }()
	defer func() { cancel(); <-done; tgt.close() }()
	rt, err := session.OpenRuntime(a.env(), live.Root(home))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	for i := 0; ; i++ { // bounded wait for the owner loop's first beat, no timing asserted
		o, found, err := rt.DB.OwnerOf(context.Background(), live.PaperBroker)
		if err == nil && found {
			if o.Kind != "serve-ssh" {
				t.Errorf("owner kind %q, want serve-ssh", o.Kind)
			}
			return
		}
		if i > 250 {
			t.Fatalf("no owner row after 5 s (%v)", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
