package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cockpit/fleet"
	"cockpit/live"
	"cockpit/live/halt"
)

// TestFleetResumeOfLocalOnlyHaltStaysLocal: `cockpit resume` that clears this host's own
// local-only halt (by cockpit: an audit failure, on_quit) does not publish a fleet-wide
// resume, so another host's operator halt stands (review of issue 16); resuming an
// operator's halt still publishes.
func TestFleetResumeOfLocalOnlyHaltStaysLocal(t *testing.T) {
	ns, err := fleet.Serve(fleet.ServeOptions{Port: -1, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Shutdown()
	client := t.TempDir()
	cfg := fmt.Sprintf("[fleet]\nurl = %q\nhost = \"desk1\"\n", ns.ClientURL())
	if err := os.WriteFile(filepath.Join(client, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	other, err := fleet.Connect(fleet.Options{URL: ns.ClientURL(), Host: "desk2"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx := context.Background()
	if err := other.PublishHalt(ctx, live.GlobalScope, fleet.HaltValue{Halted: true, By: "bob", Reason: "broker incident", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	root, err := live.NewRoot(client)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := halt.Trip(root, live.HaltSentinel, live.GlobalScope, "cockpit", "audit_unavailable: disk full", time.Now()); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, client, "", "resume", "--reason", "audit disk fixed")
	if code != 0 || strings.Contains(out, "Fleet: published") || !strings.Contains(out, "Fleet: not published") {
		t.Errorf("resume of a local-only halt: exit %d\n%s%s", code, out, errOut)
	}
	if h, err := other.Halts(ctx); err != nil || !h["global"].Halted {
		t.Fatalf("bucket = %+v %v, want desk2's halt still standing", h["global"], err)
	}
	if _, err := halt.Trip(root, live.HaltSentinel, live.GlobalScope, "alice", "drill", time.Now()); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := run(t, client, "", "resume", "--reason", "drill over"); code != 0 || !strings.Contains(out, "Fleet: published") {
		t.Errorf("resume of an operator's halt: exit %d\n%s%s", code, out, errOut)
	}
	if h, err := other.Halts(ctx); err != nil || h["global"].Halted {
		t.Errorf("bucket = %+v %v, want the operator's resume", h["global"], err)
	}
}
