package session

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/store"
)

// TestDemoAgentDetachesReviews (issue 29 §5): the built-in strategy agent's reviews hold their
// order, not the agent (engine.DetachReviews); other agents keep waiting for the answer.
func TestDemoAgentDetachesReviews(t *testing.T) {
	for _, tt := range []struct {
		agent string
		want  bool
	}{{"strategy", true}, {"none", false}} {
		t.Run(tt.agent, func(t *testing.T) {
			o := testOptions(t.TempDir())
			o.Agent = tt.agent
			s, err := Open(o)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if got := s.Engine().DetachReviews; got != tt.want {
				t.Errorf("agent %s: DetachReviews = %v, want %v", tt.agent, got, tt.want)
			}
		})
	}
}

// TestDemoKeepsTradingWhileAReviewWaits is issue 29 §5's repro on the demo: the built-in
// strategy on the paper broker with a screen attached (approvals = tui) meets a review (a
// conviction order over the order cap) and, while it waits unanswered, the agent's next
// in-mandate orders are still placed. Before, the agent sat in the review for its 5 minutes.
func TestDemoKeepsTradingWhileAReviewWaits(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("[agents.strategy]\ninterval = \"50ms\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := testOptions(home)
	o.Agent = "strategy"
	s, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	defer func() { stop(); <-done }()
	var review time.Time
	after := 0
	deadline := time.Now().Add(60 * time.Second) // a hang guard, not a timing assertion
	for after == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		evs, err := s.rt.DB.Events(context.Background(), store.Filter{Limit: 10000, Ascending: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			switch {
			case e.Type == live.KindApprovalRequested && review.IsZero():
				review = e.Time
			case e.Type == live.KindOrderPlaced && !review.IsZero() && e.Time.After(review) && e.ApprovalID == "":
				after++
			}
		}
		if !review.IsZero() {
			if pending, _ := s.rt.DB.Approvals(context.Background(), store.ApprovalPending, 10); len(pending) == 0 {
				t.Fatal("the review was answered by nobody, yet it no longer waits")
			}
		}
	}
	if review.IsZero() {
		t.Fatal("the demo raised no review in 60 s")
	}
	if after == 0 {
		t.Fatal("no order was placed while the review waited: the review holds the agent")
	}
}
