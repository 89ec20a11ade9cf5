package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkIntegrity1M: the start-up check on a 1,000,000-event database: PRAGMA quick_check,
// the full chain recomputed, and both with the anchor comparison (CheckIntegrity).
func BenchmarkIntegrity1M(b *testing.B) {
	db, err := Open(million(b))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	b.Run("quick_check", func(b *testing.B) {
		for b.Loop() {
			if bad, err := db.QuickCheck(ctx); err != nil || len(bad) > 0 {
				b.Fatal(bad, err)
			}
		}
	})
	b.Run("verify", func(b *testing.B) {
		for b.Loop() {
			if rep, err := db.Verify(ctx, nil); err != nil || !rep.OK() {
				b.Fatal(rep, err)
			}
		}
	})
	b.Run("check_integrity", func(b *testing.B) {
		for b.Loop() {
			if in := db.CheckIntegrity(ctx); in.Problem != "" {
				b.Fatal(in.Problem)
			}
		}
	})
}

// BenchmarkAppendAnchored: one durable audit record plus the anchor file (temp, fsync, rename).
func BenchmarkAppendAnchored(b *testing.B) {
	dir := b.TempDir()
	db := mustOpen(b, filepath.Join(dir, "cockpit.db"))
	db.SetAnchor(filepath.Join(dir, AnchorFile))
	ctx := context.Background()
	r := record(1)
	var samples []time.Duration
	for b.Loop() {
		start := time.Now()
		if err := db.Record(ctx, r); err != nil {
			b.Fatal(err)
		}
		samples = append(samples, time.Since(start))
	}
	percentiles(b, samples, "events/s")
}

// BenchmarkProbeAudit: the gate's pre-forward check that a record could be written.
func BenchmarkProbeAudit(b *testing.B) {
	db := mustOpen(b, "")
	ctx := context.Background()
	for b.Loop() {
		if err := db.ProbeAudit(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
