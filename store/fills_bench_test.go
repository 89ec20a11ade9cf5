package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"cockpit/live"
)

// fillHistory appends days of fills (perDay a day, alternating buys and sells of 10 symbols)
// before day0, in batches, and returns the store.
func fillHistory(b *testing.B, days, perDay int) *DB {
	b.Helper()
	db := mustOpen(b, "")
	ctx := context.Background()
	n := 0
	for d := -days; d < 0; d++ {
		var batch []Event
		for i := 0; i < perDay; i++ {
			n++
			side := []string{"buy", "sell"}[i/10%2]
			u := fillAt(d, 0, fmt.Sprintf("H%d", n), side, fmt.Sprintf("S%d", i%10), "1", fmt.Sprint(100+i%7))
			u.Time = u.Time.Add(time.Duration(i) * time.Minute)
			f, _ := live.NextFill("paper", u, live.FillProgress{})
			batch = append(batch, EventFromRecord(f.Record("bench")))
		}
		if _, err := db.AppendBatch(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	return db
}

// BenchmarkFillRecord: one fill through the recorder (the ledger read, then the durable append
// with its FIFO tables), on a store that holds 30 days of 200 fills.
func BenchmarkFillRecord(b *testing.B) {
	db := fillHistory(b, 30, 200)
	r := recorder(db)
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		u := fillAt(0, 1, fmt.Sprintf("B%d", i), []string{"buy", "sell"}[i%2], "AAPL", "1", "100")
		if _, ok, err := r.Observe(ctx, u); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkDayTrades: one day's 200 fills read back, after 10 and after 100 days of history
// (flat: the read is the day's, through fills_ts).
func BenchmarkDayTrades(b *testing.B) {
	for _, days := range []int{10, 100} {
		b.Run(fmt.Sprintf("history=%dd", days), func(b *testing.B) {
			db := fillHistory(b, days, 200)
			ctx := context.Background()
			for b.Loop() {
				dt, err := db.DayTrades(ctx, day0.AddDate(0, 0, -1), "")
				if err != nil || len(dt.Trades) != 200 {
					b.Fatal(len(dt.Trades), err)
				}
			}
		})
	}
}

// BenchmarkDailyPnL: 7 days of P&L (10 symbols) after 10 and 100 days of history.
func BenchmarkDailyPnL(b *testing.B) {
	for _, days := range []int{10, 100} {
		b.Run(fmt.Sprintf("history=%dd", days), func(b *testing.B) {
			db := fillHistory(b, days, 200)
			ctx := context.Background()
			for b.Loop() {
				if _, err := db.DailyPnL(ctx, day0.AddDate(0, 0, -1), 7, ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
