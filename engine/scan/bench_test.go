package scan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"cockpit/live/jsonv"
)

// The reference benchmark corpus: written by ../shared/bench/bench_inputs.py (seeded) into
// $COCKPIT_BENCH_INPUTS, or into a temporary directory when python3 is available.
var (
	corpusOnce sync.Once
	corpusDir  string
	corpusErr  error
)

func corpus(tb testing.TB) string {
	tb.Helper()
	corpusOnce.Do(func() {
		if d := os.Getenv("COCKPIT_BENCH_INPUTS"); d != "" {
			corpusDir = d
			return
		}
		gen := filepath.Join("..", "..", "..", "shared", "bench", "bench_inputs.py")
		if _, err := os.Stat(gen); err != nil {
			corpusErr = err
			return
		}
		dir, err := os.MkdirTemp("", "cockpit-bench-inputs")
		if err != nil {
			corpusErr = err
			return
		}
		if out, err := exec.Command("python3", gen, "--out", dir).CombinedOutput(); err != nil {
			corpusErr = err
			tb.Log(string(out))
			return
		}
		corpusDir = dir
	})
	if corpusErr != nil || corpusDir == "" {
		tb.Skipf("no benchmark corpus (set COCKPIT_BENCH_INPUTS or install python3): %v", corpusErr)
	}
	return corpusDir
}

// reference holds the Python figures and output hashes.
type reference struct {
	Scan []struct {
		Input        string  `json:"input"`
		PerCallMS    float64 `json:"per_call_ms"`
		MBPerS       float64 `json:"MB_per_s"`
		OutputSHA256 string  `json:"output_sha256"`
	} `json:"scan"`
	Files []struct {
		Name   string `json:"name"`
		SHA256 string `json:"sha256"`
	}
}

func loadReference(tb testing.TB) (map[string]string, map[string]string) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "bench", "reference-python-results.json"))
	if err != nil {
		tb.Skipf("no reference results: %v", err)
	}
	var r struct {
		reference
		Manifest struct {
			Files []struct {
				Name   string `json:"name"`
				SHA256 string `json:"sha256"`
			} `json:"files"`
		} `json:"inputs_manifest"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		tb.Fatal(err)
	}
	inputs, outputs := map[string]string{}, map[string]string{}
	for _, f := range r.Manifest.Files {
		inputs[f.Name] = f.SHA256
	}
	for _, s := range r.Scan {
		outputs[s.Input] = s.OutputSHA256
	}
	return inputs, outputs
}

func hash(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// scanCall is the reference's timed call: with_security_warnings({"content": text}, ["content"]).
func scanCall(text string) *jsonv.Object {
	_, out := WithSecurityWarnings(jsonv.ObjectOf("content", text), []string{"content"})
	return out
}

var scanInputs = []string{"scan_realistic_mixed_1mb.txt", "scan_realistic_clean_1mb.txt", "scan_unicode_heavy_1mb.txt",
	"scan_adv_r1_ignore_previous.txt", "scan_adv_r2_reveal_system.txt", "scan_adv_r3_you_are_now.txt", "scan_adv_r4_print.txt",
	"scan_adv_r5_use_run_call.txt", "scan_adv_all_windows.txt", "scan_adv_ws_backtrack.txt", "scan_adv_no_boundaries.txt",
	"scan_adv_token_nearmiss.txt", "scan_adv_token_dense.txt"}

// TestCorpusOutputs checks the scanner's output on the reference corpus against the
// reference's own output hashes (json.dumps of the resulting payload).
func TestCorpusOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	dir := corpus(t)
	inputs, outputs := loadReference(t)
	for _, name := range scanInputs {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := hash(data); got != inputs[name] {
			t.Fatalf("%s: input sha256 %s, manifest %s", name, got, inputs[name])
		}
		out, err := jsonv.Marshal(scanCall(string(data)), jsonv.Python)
		if err != nil {
			t.Fatal(err)
		}
		if got := hash(out); got != outputs[name] {
			t.Errorf("%s: output sha256 %s, reference %s", name, got, outputs[name])
		}
	}
}

// BenchmarkCorpus times the reference's call on each corpus file (MB = 10^6 bytes).
func BenchmarkCorpus(b *testing.B) {
	dir := corpus(b)
	for _, name := range scanInputs {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		text := string(data)
		b.Run(strings.TrimSuffix(name, ".txt"), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for i := 0; i < b.N; i++ {
				scanCall(text)
			}
		})
	}
}
