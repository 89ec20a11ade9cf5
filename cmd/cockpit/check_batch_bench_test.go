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

// BenchmarkBatchLine is one batch line per op, read, checked and its verdict appended (the
// corpus's first 2,000 lines in turn, one worker): "strict" parses the whole line into values
// and validates its mandate every time; "fast" is the plain-line path with its mandate cache.
func BenchmarkBatchLine(b *testing.B) {
	lines := benchcorpus.BatchLines(b, 2000)
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	var out []byte
	b.Run("strict", func(b *testing.B) {
		b.SetBytes(int64(size / len(lines)))
		defer benchcorpus.ReportCPU(b)()
		for i := 0; b.Loop(); i++ {
			out = batchLine(lines[i%len(lines)], i).AppendJSON(out[:0])
		}
	})
	b.Run("members", func(b *testing.B) { // the fast path's syntax check and member split alone
		b.SetBytes(int64(size / len(lines)))
		c := newBatchCache()
		var spans [len(whatIfMembers)]string
		var found [len(whatIfMembers)]bool
		for i := 0; b.Loop(); i++ {
			if !c.plain.Members(lines[i%len(lines)], whatIfMembers[:], spans[:], found[:]) {
				b.Fatalf("line %d is not plain", i%len(lines))
			}
		}
	})
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(int64(size / len(lines)))
		c := newBatchCache()
		defer benchcorpus.ReportCPU(b)()
		for i := 0; b.Loop(); i++ {
			res, ok := fastBatchLine(c, lines[i%len(lines)], i)
			if !ok {
				b.Fatalf("line %d is not plain", i%len(lines))
			}
			out = res.AppendJSON(out[:0])
		}
	})
}
