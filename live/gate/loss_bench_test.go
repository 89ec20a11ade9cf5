package gate_test

import (
	"context"
	"testing"

	"cockpit/live"
	"cockpit/live/halt"
)

// BenchmarkLossTrip is one equity read that finds the daily loss limit crossed and halts:
// the verified mandate, the account read, the day's mark, the HALT file written (fsync) and
// the trip and crossing audited (in memory here). The HALT is cleared between iterations
// (not timed). The session's reads come every LossWatchEvery (2 s) and after each fill, so a
// crossing between reads waits for the next one; this is the work once the read sees it.
func BenchmarkLossTrip(b *testing.B) {
	f, eb, _ := newLossFixture(b, `{"max_daily_loss_usd": 500}`)
	ctx := context.Background()
	eb.set("100000")
	f.gate.WatchLoss(ctx, eb, "paper") // the day's start
	for b.Loop() {
		b.StopTimer()
		halt.Clear(f.root, live.HaltSentinel, live.BrokerScope("paper"))
		eb.set("99000")
		b.StartTimer()
		f.gate.WatchLoss(ctx, eb, "paper")
		if !halt.IsHalted(f.root, "paper") {
			b.Fatal("not halted")
		}
	}
}
