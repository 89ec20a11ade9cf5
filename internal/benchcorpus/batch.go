package benchcorpus

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"cockpit/live/jsonv"
)

// BatchCases is the size of the `check --batch` benchmark corpus (100k lines, about 80 MB).
const BatchCases = 100_000

// WriteBatch writes n `check --batch` lines built from the reference's check_mandate vectors
// (../shared/conformance/live.json): the vectors in turn, each with its own id and, for a
// plain notional, a seeded variation of it, so verdicts differ from line to line.
func WriteBatch(w io.Writer, n int) error {
	data, err := os.ReadFile(filepath.Join(shared(), "..", "conformance", "live.json"))
	if err != nil {
		return err
	}
	doc, err := jsonv.Parse(data, jsonv.Options{NonFinite: true})
	if err != nil {
		return err
	}
	root, _ := doc.(*jsonv.Object)
	cases, _ := root.Value("check_mandate").([]any)
	if len(cases) == 0 {
		return fmt.Errorf("no check_mandate vectors in live.json")
	}
	rng := rand.New(rand.NewPCG(15, 1))
	bw := bufio.NewWriter(w)
	for i := range n {
		c := jsonv.Clone(cases[i%len(cases)]).(*jsonv.Object)
		id, _ := c.Value("id").(string)
		c.Set("id", id+"#"+strconv.Itoa(i))
		if in, ok := c.Object("intent"); ok && i >= len(cases) {
			if num, ok := in.Value("notional_usd").(jsonv.Number); ok {
				if f, err := num.Float64(); err == nil && f > 0 {
					in.Set("notional_usd", jsonv.Number(strconv.FormatFloat(f*(0.5+rng.Float64()), 'f', 2, 64)))
				}
			}
		}
		line, err := jsonv.Marshal(c, jsonv.Python)
		if err != nil {
			return err
		}
		bw.Write(line)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// BatchLines returns the first n lines WriteBatch writes (skipping the benchmark when the
// conformance vectors are not there).
func BatchLines(tb testing.TB, n int) []string {
	tb.Helper()
	var buf strings.Builder
	if err := WriteBatch(&buf, n); err != nil {
		tb.Skipf("no batch corpus: %v", err)
	}
	return strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
}
