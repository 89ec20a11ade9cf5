// Package benchcorpus gives benchmarks the reference's input corpus: the files
// ../shared/bench/bench_inputs.py writes (seeded, byte-identical), checked against the
// sha256s in the reference results, with the reference's own timings and output hashes.
package benchcorpus

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	once sync.Once
	dir  string
	err  error
)

// shared is ../shared/bench from the module root.
func shared() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "bench")
}

// Dir returns the corpus directory: $COCKPIT_BENCH_INPUTS, or one generated once with
// python3. It skips the benchmark when neither is available.
func Dir(tb testing.TB) string {
	tb.Helper()
	once.Do(func() {
		if d := os.Getenv("COCKPIT_BENCH_INPUTS"); d != "" {
			dir = d
			return
		}
		var d string
		if d, err = os.MkdirTemp("", "cockpit-bench-inputs"); err != nil {
			return
		}
		if _, err = exec.Command("python3", filepath.Join(shared(), "bench_inputs.py"), "--out", d).CombinedOutput(); err == nil {
			dir = d
		}
	})
	if dir == "" {
		tb.Skipf("no benchmark corpus (set COCKPIT_BENCH_INPUTS or install python3): %v", err)
	}
	return dir
}

// Reference is the reference implementation's published results.
type Reference struct {
	Manifest struct {
		Files []struct {
			Name   string `json:"name"`
			SHA256 string `json:"sha256"`
		} `json:"files"`
	} `json:"inputs_manifest"`
	Scan []struct {
		Input        string  `json:"input"`
		PerCallMS    float64 `json:"per_call_ms"`
		MBPerS       float64 `json:"MB_per_s"`
		OutputSHA256 string  `json:"output_sha256"`
	} `json:"scan"`
	Redact []struct {
		Input        string  `json:"input"`
		Fn           string  `json:"fn"`
		PerCallMS    float64 `json:"per_call_ms"`
		MBPerS       float64 `json:"MB_per_s"`
		OutputSHA256 string  `json:"output_sha256"`
	} `json:"redact"`
}

// LoadReference reads the reference results (skipping when absent).
func LoadReference(tb testing.TB) Reference {
	tb.Helper()
	var r Reference
	data, err := os.ReadFile(filepath.Join(shared(), "reference-python-results.json"))
	if err != nil {
		tb.Skipf("no reference results: %v", err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		tb.Fatal(err)
	}
	return r
}

// Read returns one corpus file after checking its sha256 against the manifest.
func Read(tb testing.TB, name string) []byte {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(Dir(tb), name))
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range LoadReference(tb).Manifest.Files {
		if f.Name == name && Hash(data) != f.SHA256 {
			tb.Fatalf("%s: sha256 %s, manifest %s", name, Hash(data), f.SHA256)
		}
	}
	return data
}

// Hash is the hex sha256 of b.
func Hash(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
