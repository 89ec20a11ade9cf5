package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

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
