package main

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// fsyncProbe appends 4 KiB and fsyncs, n times, to a new file in dir (removed at the end), as
// ../shared/bench/reference/fsync_probe.py does: the disk's floor for one durable commit.
func fsyncProbe(dir string, n int) ([]time.Duration, error) {
	path := filepath.Join(dir, fmt.Sprintf("fsync-probe-%d.bin", os.Getpid()))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	defer os.Remove(path)
	defer f.Close()
	buf := make([]byte, 4096)
	rand.Read(buf)
	samples := make([]time.Duration, 0, n)
	for range n {
		t0 := time.Now()
		if _, err := f.Write(buf); err != nil {
			return nil, err
		}
		if err := f.Sync(); err != nil {
			return nil, err
		}
		samples = append(samples, time.Since(t0))
	}
	return samples, nil
}

// boundFigures are the fsync probe's figures and the durable gate's rate as a fraction of the
// disk's bound for the two durable commits each order makes (the write-ahead row, then the
// outcome with its audit record): 1 / (2 × the probe's p50).
func boundFigures(probe []time.Duration, rate float64) []Figure {
	p50, p99 := pct(probe, 0.50)/1000, pct(probe, 0.99)/1000
	note := fmt.Sprintf("%d × (4 KiB append + fsync) in the gate's directory, taking turns with its orders", len(probe))
	bound := 1000 / (2 * p50)
	return []Figure{
		{Name: "fsync probe, p50", Value: p50, Unit: "ms", Note: note},
		{Name: "fsync probe, p99", Value: p99, Unit: "ms"},
		{Name: "two-fsync bound (1 / 2 × fsync p50)", Value: bound, Unit: "orders/s"},
		{Name: "durable gate / two-fsync bound", Value: 100 * rate / bound, Unit: "%", Note: "goal ≥ 50 % (issue 32 §2)"},
	}
}
