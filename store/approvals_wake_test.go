package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestResolveWakesWaiters: a resolution in this process wakes its review waiters at once,
// so they need not poll often (the idle screen's CPU, issue 12); a refused second
// resolution wakes nobody.
func TestResolveWakesWaiters(t *testing.T) {
	db := mustOpen(t, filepath.Join(t.TempDir(), "cockpit.db"))
	ctx := context.Background()
	now := time.Now()
	if err := db.CreateApproval(ctx, Approval{ID: "ap_w", Broker: "paper", OrderJSON: `{}`, Digest: "d", Why: "breach",
		CreatedAt: now, Deadline: now.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	wake := db.notify.subscribe()
	defer db.notify.unsubscribe(wake)
	if _, err := db.Resolve(ctx, "ap_w", ApprovalApproved, "tui:op", ""); err != nil {
		t.Fatal(err)
	}
	select {
	case <-wake:
	default:
		t.Fatal("the resolution woke no waiter")
	}
	if _, err := db.Resolve(ctx, "ap_w", ApprovalDenied, "tui:op", ""); err == nil {
		t.Fatal("a second resolution succeeded")
	}
	select {
	case <-wake:
		t.Error("a refused resolution woke the waiters")
	default:
	}
}
