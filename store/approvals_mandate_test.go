package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestVoidPendingForOneBroker (issue 28 §4): a review item keeps the mandate it was computed
// under, and a new mandate for a broker voids that broker's pending items only (and wakes
// their waiters); resolved items stay as they are.
func TestVoidPendingForOneBroker(t *testing.T) {
	db := mustOpen(t, filepath.Join(t.TempDir(), "cockpit.db"))
	ctx := context.Background()
	now := time.Now()
	for _, a := range []Approval{
		{ID: "ap_p1", Broker: "paper", Mandate: "h1"},
		{ID: "ap_p2", Broker: "paper", Mandate: "h1"},
		{ID: "ap_done", Broker: "paper", Mandate: "h1"},
		{ID: "ap_other", Broker: "alpaca", Mandate: "h2"},
	} {
		a.OrderJSON, a.Digest, a.Why, a.CreatedAt, a.Deadline = `{}`, "d", "breach", now, now.Add(time.Minute)
		if err := db.CreateApproval(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Resolve(ctx, "ap_done", ApprovalDenied, "op", ""); err != nil {
		t.Fatal(err)
	}
	if a, err := db.Approval(ctx, "ap_p1"); err != nil || a.Mandate != "h1" {
		t.Fatalf("ap_p1 mandate = %q, %v; want h1", a.Mandate, err)
	}
	wake := db.notify.subscribe()
	defer db.notify.unsubscribe(wake)
	ids, err := db.VoidPendingFor(ctx, "paper", "new mandate")
	if err != nil || len(ids) != 2 {
		t.Fatalf("VoidPendingFor: %v %v, want ap_p1 and ap_p2", ids, err)
	}
	select {
	case <-wake:
	default:
		t.Error("voiding woke no waiter")
	}
	for id, want := range map[string]ApprovalState{"ap_p1": ApprovalVoided, "ap_p2": ApprovalVoided, "ap_done": ApprovalDenied, "ap_other": ApprovalPending} {
		if a, err := db.Approval(ctx, id); err != nil || a.State != want {
			t.Errorf("%s: %s %v, want %s", id, a.State, err, want)
		}
	}
}
