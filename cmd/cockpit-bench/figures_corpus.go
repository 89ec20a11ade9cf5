package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"cockpit/engine/scan"
	"cockpit/live/jsonv"
	"cockpit/live/redact"
)

var (
	corpusOnce sync.Once
	corpusDir  string
	corpusErr  error
)

// corpus is the reference's input corpus: $COCKPIT_BENCH_INPUTS, or written once by
// ../shared/bench/bench_inputs.py (seeded, byte-identical to the reference's).
func corpus(c config) (string, error) {
	corpusOnce.Do(func() {
		if d := os.Getenv("COCKPIT_BENCH_INPUTS"); d != "" {
			corpusDir = d
			return
		}
		d := filepath.Join(c.tmp, "corpus")
		out, err := exec.Command("python3", filepath.Join(sharedDir(), "bench", "bench_inputs.py"), "--out", d).CombinedOutput()
		if err != nil {
			corpusErr = fmt.Errorf("bench_inputs.py: %v: %s", err, out)
			return
		}
		corpusDir = d
	})
	return corpusDir, corpusErr
}

// mbps is the slowest MB/s (10^6 bytes) over files, and which file it was.
func mbps(c config, files []string, call func(data []byte)) (float64, string, error) {
	dir, err := corpus(c)
	if err != nil {
		return 0, "", err
	}
	worst, which := 0.0, ""
	for _, name := range files {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return 0, "", err
		}
		n, took := repeatFor(time.Duration(c.size(50, 1000))*time.Millisecond, func() { call(data) })
		rate := float64(len(data)) * float64(n) / 1e6 / took.Seconds()
		if which == "" || rate < worst {
			worst, which = rate, name
		}
	}
	return worst, which, nil
}

// figRedaction: redaction of the nested payload (both sinks) and of the text files: the
// slowest file.
func figRedaction(c config) ([]Figure, error) {
	dir, err := corpus(c)
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(filepath.Join(dir, "redact_nested_payload_1mb.json"))
	if err != nil {
		return nil, err
	}
	doc, err := jsonv.Parse(raw, jsonv.Options{NonFinite: true})
	if err != nil {
		return nil, err
	}
	payload, _, err := mbps(c, []string{"redact_nested_payload_1mb.json"}, func([]byte) {
		redact.Payload(doc, redact.SinkArguments)
		redact.Payload(doc, redact.SinkResult)
	})
	if err != nil {
		return nil, err
	}
	text, which, err := mbps(c, []string{"redact_log_text_1mb.txt", "redact_adv_mix_1mb.txt", "redact_adv_bearer_1mb.txt",
		"redact_adv_word_run_1mb.txt", "redact_adv_sk_nearmiss_1mb.txt"}, func(b []byte) { redact.Text(string(b)) })
	if err != nil {
		return nil, err
	}
	return []Figure{
		{Name: "redaction, nested payload (both sinks)", Value: payload * 2, Unit: "MB/s"},
		{Name: "redaction, text, slowest corpus file", Value: text, Unit: "MB/s", Note: which},
	}, nil
}

// figScanner: the scanner on the adversarial and realistic corpus: the slowest file.
func figScanner(c config) ([]Figure, error) {
	files := []string{"scan_realistic_mixed_1mb.txt", "scan_realistic_clean_1mb.txt", "scan_unicode_heavy_1mb.txt",
		"scan_adv_r1_ignore_previous.txt", "scan_adv_r2_reveal_system.txt", "scan_adv_r3_you_are_now.txt", "scan_adv_r4_print.txt",
		"scan_adv_r5_use_run_call.txt", "scan_adv_all_windows.txt", "scan_adv_ws_backtrack.txt", "scan_adv_no_boundaries.txt",
		"scan_adv_token_nearmiss.txt", "scan_adv_token_dense.txt"}
	rate, which, err := mbps(c, files, func(b []byte) {
		scan.WithSecurityWarnings(jsonv.ObjectOf("content", string(b)), []string{"content"})
	})
	if err != nil {
		return nil, err
	}
	return []Figure{{Name: "scanner, slowest corpus file", Value: rate, Unit: "MB/s", Note: strings.TrimSuffix(which, ".txt")}}, nil
}
