package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"cockpit/session"
	"cockpit/store"
)

// holdAccount opens a session that owns the paper account on home and records an owner row
// like the one a running serve-mcp writes (pid 4242, started an hour before fixedNow,
// heartbeat now). It returns the session's store.
func holdAccount(t *testing.T, home string, o store.Owner) *store.DB {
	t.Helper()
	run(t, home, "", "init")
	a := NewApp(strings.NewReader(""), &strings.Builder{}, &strings.Builder{})
	a.Now = func() time.Time { return fixedNow }
	a.Getenv = func(string) string { return "" }
	first, err := a.openSession(home, session.Options{Agent: "none", Mode: "serve-mcp"})
	if err != nil {
		t.Fatalf("first session: %v", err)
	}
	t.Cleanup(func() { first.Close() })
	db := first.Runtime().DB
	o.Broker, o.SessionID = "paper", first.ID()
	if err := db.SetOwner(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestSecondServeMCPNamesTheOwner is issue 31 item 3: a second serve-mcp on an owned root
// says which process owns the account (kind, pid, since) instead of "use its screen"; a
// record without kind or start time says "unknown".
func TestSecondServeMCPNamesTheOwner(t *testing.T) {
	tests := []struct {
		name  string
		owner store.Owner
		want  []string
	}{
		{"full record", store.Owner{PID: 4242, Host: "desk", Kind: "serve-mcp", StartedAt: fixedNow.Add(-time.Hour), HeartbeatAt: fixedNow},
			[]string{"in use by serve-mcp (pid 4242 on desk, since 2026-06-01T14:00:00Z)", "stop that process first"}},
		{"record lacking kind and since", store.Owner{PID: 4242, Host: "desk", HeartbeatAt: fixedNow},
			[]string{"in use by unknown (pid 4242 on desk, since unknown)"}},
		{"stale heartbeat", store.Owner{PID: 7, Host: "desk", Kind: "headless", StartedAt: fixedNow.Add(-time.Hour), HeartbeatAt: fixedNow.Add(-time.Minute)},
			[]string{"headless (pid 7 on desk, since 2026-06-01T14:00:00Z), last heartbeat 1m0s ago"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			holdAccount(t, home, tt.owner)
			_, errOut, code := run(t, home, "", "serve-mcp")
			if code != exitFailure {
				t.Errorf("got exit %d, want %d; stderr %q", code, exitFailure, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("got stderr %q, want it to contain %q", errOut, w)
				}
			}
			if strings.Contains(errOut, "use its screen") {
				t.Errorf("got stderr %q, want no \"use its screen\" (serve-mcp has none)", errOut)
			}
		})
	}
}

// TestStatusNamesTheOwner: status (text and --json) names the process that owns each
// broker account, and says none when nothing does.
func TestStatusNamesTheOwner(t *testing.T) {
	home := t.TempDir()
	run(t, home, "", "init")
	out, _, _ := run(t, home, "", "status")
	if !strings.Contains(out, "Owner:     none recorded (no cockpit has registered as this account's owner)") {
		t.Errorf("status with no owner: got\n%s\nwant an Owner: none line", out)
	}
	if b := statusJSON(t, home)["brokers"].([]any)[0].(map[string]any); b["owner"] != nil {
		t.Errorf("status --json with no owner: got owner %v, want null", b["owner"])
	}

	holdAccount(t, home, store.Owner{PID: 4242, Host: "desk", Kind: "serve-mcp", StartedAt: fixedNow.Add(-time.Hour), HeartbeatAt: fixedNow})
	out, _, _ = run(t, home, "", "status")
	if want := "Owner:     serve-mcp (pid 4242 on desk, since 2026-06-01T14:00:00Z)"; !strings.Contains(out, want) {
		t.Errorf("status: got\n%s\nwant a line %q", out, want)
	}
	b := statusJSON(t, home)["brokers"].([]any)[0].(map[string]any)
	o, _ := b["owner"].(map[string]any)
	want := map[string]any{"kind": "serve-mcp", "pid": float64(4242), "host": "desk", "since": "2026-06-01T14:00:00.000000Z",
		"heartbeat": "2026-06-01T15:00:00.000000Z", "alive": true}
	for k, w := range want {
		if o[k] != w {
			t.Errorf("status --json owner.%s: got %v, want %v (owner %v)", k, o[k], w, o)
		}
	}
}
