package jsonv_test

import (
	"testing"

	"cockpit/internal/benchcorpus"
	"cockpit/live/jsonv"
)

// BenchmarkParseLine parses one `check --batch` line (the corpus's first 84 lines in turn,
// about 850 bytes each), as `check --batch` does: NaN/Infinity allowed, repeated keys refused.
func BenchmarkParseLine(b *testing.B) {
	lines := benchcorpus.BatchLines(b, 84)
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	b.SetBytes(int64(size / len(lines)))
	opt := jsonv.Options{NonFinite: true, RejectDuplicates: true}
	defer benchcorpus.ReportCPU(b)()
	for i := 0; b.Loop(); i++ {
		if _, err := jsonv.ParseString(lines[i%len(lines)], opt); err != nil {
			b.Fatal(err)
		}
	}
}
