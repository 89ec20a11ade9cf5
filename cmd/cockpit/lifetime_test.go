package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"cockpit/session"
)

// TestCommitLifetimeClampsToOneDay: a commit asked for 0 days lasts one day, as the
// reference's max(1, lifetime_days) — not the 30-day default.
func TestCommitLifetimeClampsToOneDay(t *testing.T) {
	home := t.TempDir()
	a := NewApp(strings.NewReader(""), &syncBuffer{}, &syncBuffer{})
	a.Now = func() time.Time { return fixedNow }
	a.Getenv = func(k string) string { return map[string]string{"COCKPIT_HOME": home}[k] }
	s, err := a.openSession("", session.Options{Agent: "none", Approvals: "tui"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Backend().CommitMandate(context.Background(), []byte(draft), 0, "paper")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.ExpiresAt, "2026-06-02T15:00:00.000000Z"; got != want {
		t.Errorf("expires_at %s, want %s (one day)", got, want)
	}
	// The command line keeps the reference API's range: --days 0 is a usage error.
	if _, _, code := run(t, t.TempDir(), "", "mandate", "commit", "--broker", "paper", "--from", writeDraft(t, draft), "--days", "0", "--yes"); code != exitUsage {
		t.Errorf("--days 0: exit %d, want %d", code, exitUsage)
	}
}
