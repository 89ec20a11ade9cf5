package store

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// TestApprovalCounts: review items are counted by state, and the oldest pending one's
// creation is reported (zero when none is pending).
func TestApprovalCounts(t *testing.T) {
	db := mustOpen(t, filepath.Join(t.TempDir(), "cockpit.db"))
	ctx := context.Background()
	counts, oldest, err := db.ApprovalCounts(ctx)
	if err != nil || len(counts) != 0 || !oldest.IsZero() {
		t.Fatalf("empty store: %v %v %v, want no counts and no oldest", counts, oldest, err)
	}
	base := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	for i, id := range []string{"ap_old", "ap_new", "ap_denied", "ap_approved"} {
		a := Approval{ID: id, Broker: "paper", OrderJSON: `{}`, Digest: "d", Why: "breach",
			CreatedAt: base.Add(time.Duration(i) * time.Minute), Deadline: base.Add(time.Hour)}
		if err := db.CreateApproval(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	for id, st := range map[string]ApprovalState{"ap_denied": ApprovalDenied, "ap_approved": ApprovalApproved} {
		if _, err := db.Resolve(ctx, id, st, "op", ""); err != nil {
			t.Fatal(err)
		}
	}
	counts, oldest, err = db.ApprovalCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[ApprovalState]int{ApprovalPending: 2, ApprovalDenied: 1, ApprovalApproved: 1}
	for st, n := range want {
		if got := counts[st]; got != n {
			t.Errorf("counts[%s] = %d, want %d", st, got, n)
		}
	}
	if !oldest.Equal(base) {
		t.Errorf("oldest pending = %v, want %v", oldest, base)
	}
}

// TestAppendObserver: every append is observed once while an observer is set, none after
// it is removed.
func TestAppendObserver(t *testing.T) {
	db := mustOpen(t, filepath.Join(t.TempDir(), "cockpit.db"))
	ctx := context.Background()
	var n atomic.Int64
	db.SetAppendObserver(func(d time.Duration) {
		if d < 0 {
			t.Errorf("negative append duration %v", d)
		}
		n.Add(1)
	})
	for range 3 {
		if _, err := db.Append(ctx, Event{Type: "test", Outcome: "accepted"}); err != nil {
			t.Fatal(err)
		}
	}
	db.SetAppendObserver(nil)
	if _, err := db.Append(ctx, Event{Type: "test", Outcome: "accepted"}); err != nil {
		t.Fatal(err)
	}
	if got, want := n.Load(), int64(3); got != want {
		t.Errorf("appends observed = %d, want %d", got, want)
	}
}
