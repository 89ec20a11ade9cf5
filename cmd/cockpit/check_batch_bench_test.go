package main

import (
	"bytes"
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"testing"

	"cockpit/internal/benchcorpus"
)

// batchCorpus writes the 100k-line `check --batch` corpus into the benchmark's temporary
// directory.
func batchCorpus(b *testing.B) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "batch.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	err = benchcorpus.WriteBatch(f, benchcorpus.BatchCases)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Skipf("no batch corpus: %v", err)
	}
	return path
}

// BenchmarkCheckBatch100k runs `check --batch` over the 100k-case corpus (the whole verb, in
// process: read, parse, validate, check, print); the output's hash is fixed across runs.
func BenchmarkCheckBatch100k(b *testing.B) {
	path := batchCorpus(b)
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(info.Size())
	var first [32]byte
	defer benchcorpus.ReportCPU(b)()
	for i := 0; b.Loop(); i++ {
		h := sha256.New()
		a := NewApp(bytes.NewReader(nil), h, io.Discard)
		if code := a.Run([]string{"check", "--batch", path}); code != exitNotAllow {
			b.Fatalf("exit %d, want %d", code, exitNotAllow)
		}
		var sum [32]byte
		copy(sum[:], h.Sum(nil))
		if i == 0 {
			first = sum
		} else if sum != first {
			b.Fatal("output changed between runs")
		}
	}
}
