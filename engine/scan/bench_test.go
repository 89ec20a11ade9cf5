package scan

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"cockpit/internal/benchcorpus"
	"cockpit/live/jsonv"
)

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
	ref := benchcorpus.LoadReference(t)
	outputs := map[string]string{}
	for _, s := range ref.Scan {
		outputs[s.Input] = s.OutputSHA256
	}
	for _, name := range scanInputs {
		data := benchcorpus.Read(t, name)
		out, err := jsonv.Marshal(scanCall(string(data)), jsonv.Python)
		if err != nil {
			t.Fatal(err)
		}
		if got := benchcorpus.Hash(out); got != outputs[name] {
			t.Errorf("%s: output sha256 %s, reference %s", name, got, outputs[name])
		}
	}
}

// BenchmarkCorpus times the reference's call on each corpus file (MB = 10^6 bytes).
func BenchmarkCorpus(b *testing.B) {
	for _, name := range scanInputs {
		text := string(benchcorpus.Read(b, name))
		b.Run(strings.TrimSuffix(name, ".txt"), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for i := 0; i < b.N; i++ {
				scanCall(text)
			}
		})
	}
}

// BenchmarkScaling scans 1×, 4× and 16× of one input of each kind (256 KB up to 4 MB): the
// time per byte stays flat when the scanner is linear.
func BenchmarkScaling(b *testing.B) {
	for _, name := range []string{"scan_realistic_clean_1mb.txt", "scan_unicode_heavy_1mb.txt", "scan_adv_r4_print.txt", "scan_adv_all_windows.txt"} {
		base := string(benchcorpus.Read(b, name))
		cut := len(base) / 4
		for cut > 0 && !utf8.RuneStart(base[cut]) {
			cut--
		}
		quarter := base[:cut]
		for _, k := range []int{1, 4, 16} {
			text := strings.Repeat(quarter, k)
			b.Run(fmt.Sprintf("%s/x%d", strings.TrimSuffix(name, ".txt"), k), func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				for i := 0; i < b.N; i++ {
					Scan(text)
				}
			})
		}
	}
}
