package main

import (
	"fmt"
	"strings"
	"testing"

	"cockpit/internal/benchcorpus"
	"cockpit/live"
)

// TestCheckBatchKeepsInputOrder: verdicts evaluated chunk by chunk on every CPU come out in
// input order, byte for byte what evaluating the lines one after another gives, with blank
// lines skipped but counted and an over-long line denied in its place.
func TestCheckBatchKeepsInputOrder(t *testing.T) {
	defer func(n int) { batchLineLimit = n }(batchLineLimit)
	batchLineLimit = 4096
	lines := benchcorpus.BatchLines(t, 5*batchChunk+17)
	lines[3] = ""
	lines[batchChunk] = "   "
	lines[2*batchChunk+1] = `{"id": "long", "pad": "` + strings.Repeat("x", 5000) + `"}`
	lines[2*batchChunk+2] = `{"id": "broken"`
	var want strings.Builder
	anyDeny := false
	for i, l := range lines {
		n := i + 1
		var res live.WhatIfResult
		switch {
		case len(l) > batchLineLimit:
			res = badLine("", n, fmt.Errorf("line %d is longer than the %d-byte limit", n, batchLineLimit))
		case strings.TrimSpace(l) == "":
			continue
		default:
			res = batchLine(strings.TrimSpace(l), n)
		}
		want.Write(append(res.AppendJSON(nil), '\n'))
		anyDeny = anyDeny || res.Verdict != live.Allow
	}
	out, errOut, code := run(t, t.TempDir(), strings.Join(lines, "\n")+"\n", "check", "--batch", "-")
	if out != want.String() {
		got, exp := strings.Split(out, "\n"), strings.Split(want.String(), "\n")
		for i := range min(len(got), len(exp)) {
			if got[i] != exp[i] {
				t.Fatalf("verdict %d:\ngot  %s\nwant %s", i+1, got[i], exp[i])
			}
		}
		t.Fatalf("got %d verdict lines, want %d (stderr %q)", len(got), len(exp), errOut)
	}
	if !anyDeny || code != exitNotAllow {
		t.Fatalf("exit %d, want %d (the corpus has denials)", code, exitNotAllow)
	}
}
