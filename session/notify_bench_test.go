package session

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"cockpit/engine"
)

// BenchmarkReviewToWebhook measures, per review, the time from the review's event on the bus
// (it waits for a human from then on) to its notification arriving at a local webhook: the
// follower, the sink's queue and worker, the JSON and one loopback HTTP round trip. It
// reports the p50 and p99 over the run (the closing note uses -benchtime=50x); each review is
// denied before the next.
func BenchmarkReviewToWebhook(b *testing.B) {
	srv, got, _ := hook(b, nil)
	s := notifyOpen(b, "[policy.global]\nautonomy = \"supervised\"", srv.URL+"/bench")
	defer s.Close()
	op := WithOperator(context.Background(), "tui:bench")
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		done := make(chan engine.Result, 1)
		go func() {
			done <- s.Engine().NewTurn(fmt.Sprint("bench-", i)).Call( // one agent per review: five denials in a minute pause an agent
				context.Background(), "place_order",
				map[string]any{"symbol": []string{"AAPL", "MSFT", "NVDA", "SPY"}[i%4], "side": "buy", "notional": 100 + i, "reason": "bench"})
		}()
		var d delivery
		select {
		case d = <-got:
		case r := <-done:
			b.Fatalf("order %d ended without a review: %+v", i, r)
		case <-time.After(time.Minute):
			b.Fatalf("no webhook delivery for review %d", i)
		}
		at, err := time.Parse(time.RFC3339Nano, d.Time)
		if err != nil || d.Event != "review" {
			b.Fatalf("delivery %+v: %v", d.WebhookPayload, err)
		}
		lat = append(lat, d.At.Sub(at))
		if err := s.Backend().Deny(op, d.Ref, "bench"); err != nil {
			b.Fatal(err)
		}
		if r := <-done; r.OK() {
			b.Fatalf("review %d: the denied order went", i)
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	q := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}
