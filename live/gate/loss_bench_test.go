package gate_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"cockpit/live"
	"cockpit/live/halt"
)

// BenchmarkLossTrip is one equity read that finds the daily loss limit crossed and halts:
// the verified mandate, the account read, the day's mark, the HALT file written (fsync) and
// the trip and crossing audited (in memory here). The HALT is cleared between iterations
// (not timed). The session's reads come every LossWatchEvery (2 s) and after each fill, so a
// crossing between reads waits for the next one; this is the work once the read sees it, from
// the equity read that crosses to the HALT file on disk and audited (p50/p99 reported).
func BenchmarkLossTrip(b *testing.B) {
	f, eb, _ := newLossFixture(b, `{"max_daily_loss_usd": 500}`)
	ctx := context.Background()
	eb.set("100000")
	f.gate.WatchLoss(ctx, eb, "paper") // the day's start
	var lat []time.Duration
	for b.Loop() {
		b.StopTimer()
		halt.Clear(f.root, live.HaltSentinel, live.BrokerScope("paper"))
		eb.set("99000")
		b.StartTimer()
		start := time.Now()
		f.gate.WatchLoss(ctx, eb, "paper")
		lat = append(lat, time.Since(start))
		if !halt.IsHalted(f.root, "paper") {
			b.Fatal("not halted")
		}
	}
	reportPercentiles(b, lat)
}

// reportPercentiles reports the p50 and p99 of the iterations' latencies, in ms.
func reportPercentiles(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	q := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}
