package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// sharedDir is ../shared next to the module (the conformance vectors and the bench corpus).
func sharedDir() string {
	if d := os.Getenv("COCKPIT_SHARED"); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "shared")
}

// batchLines is n JSONL what-ifs: the reference's check_mandate vectors, repeated with ids.
func batchLines(n int) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(sharedDir(), "conformance", "live.json"))
	if err != nil {
		return nil, err
	}
	var doc struct {
		Cases []map[string]json.RawMessage `json:"check_mandate"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Cases) == 0 {
		return nil, errors.New("no check_mandate cases")
	}
	var base []string
	for _, c := range doc.Cases {
		delete(c, "expected")
		delete(c, "expected_provider_calls")
		delete(c, "note")
		b, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		base = append(base, string(b))
	}
	out := make([]string, n)
	for i := range out {
		out[i] = base[i%len(base)]
	}
	return out, nil
}

// cockpitBinary builds cmd/cockpit once (unless --cockpit names one).
func cockpitBinary(c config) (string, error) {
	if c.cockpit != "" {
		return c.cockpit, nil
	}
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(c.tmp, "cockpit")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/cockpit")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/cockpit: %v\n%s", err, out)
	}
	return bin, nil
}

// figCheckBatch: `cockpit check --batch FILE`, the whole process, on the vectors repeated.
func figCheckBatch(c config) ([]Figure, error) {
	n := c.size(5_000, 100_000)
	lines, err := batchLines(n)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(c.tmp, "batch.jsonl")
	var buf bytes.Buffer
	for _, l := range lines {
		buf.WriteString(l)
		buf.WriteByte('\n')
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		return nil, err
	}
	bin, err := cockpitBinary(c)
	if err != nil {
		return nil, err
	}
	home := filepath.Join(c.tmp, "check-home")
	var best time.Duration
	for range c.size(1, 3) {
		cmd := exec.Command(bin, "check", "--batch", path)
		cmd.Env = append(os.Environ(), "COCKPIT_HOME="+home)
		out, err := os.Create(filepath.Join(c.tmp, "verdicts.jsonl"))
		if err != nil {
			return nil, err
		}
		cmd.Stdout = out
		start := time.Now()
		err = cmd.Run()
		took := time.Since(start)
		out.Close()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			return nil, err
		}
		if got := countLines(filepath.Join(c.tmp, "verdicts.jsonl")); got != n {
			return nil, fmt.Errorf("check --batch wrote %d verdicts for %d lines (%v)", got, n, err)
		}
		if best == 0 || took < best {
			best = took
		}
	}
	return []Figure{{Name: fmt.Sprintf("check --batch, %dk cases, whole process", n/1000), Value: best.Seconds(), Unit: "s",
		Note: fmt.Sprintf("%.1f MB JSONL, best of %d", float64(buf.Len())/1e6, c.size(1, 3))}}, nil
}

func countLines(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	n := 0
	for sc.Scan() {
		n++
	}
	return n
}

// requests parses the what-ifs into CheckMandate requests (lines whose mandate is invalid are
// left out: they never reach the check).
func requests(lines []string) ([]live.CheckRequest, error) {
	var out []live.CheckRequest
	for _, l := range lines {
		doc, err := jsonv.ParseString(l, jsonv.Options{NonFinite: true})
		if err != nil {
			return nil, err
		}
		w, err := live.WhatIfFromJSON(doc.(*jsonv.Object))
		if err != nil {
			continue
		}
		m, err := live.CapsFromJSON(w.Mandate)
		if err != nil {
			continue
		}
		count := 0
		if n, ok := w.DailyCount.(jsonv.Number); ok {
			count, _ = strconv.Atoi(string(n))
		}
		out = append(out, live.CheckRequest{Mandate: m, Intent: live.IntentFromJSON(w.Intent), Book: live.ParsePositions(w.Positions),
			DailyCount: count, Floors: &live.StaticFloors{Data: w.UniverseData}})
	}
	return out, nil
}

// figCheckMandate: CheckMandate per call on the stream, books parsed beforehand.
func figCheckMandate(c config) ([]Figure, error) {
	lines, err := batchLines(c.size(5_000, 100_000))
	if err != nil {
		return nil, err
	}
	reqs, err := requests(lines)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	us := perCall(len(reqs)*c.size(3, 5), func(i int) { live.CheckMandate(ctx, reqs[i%len(reqs)]) })
	return []Figure{{Name: "CheckMandate per call, book pre-parsed", Value: us, Unit: "µs", Note: fmt.Sprintf("%d requests", len(reqs))}}, nil
}

// figPositions: 100 broker position rows parsed into a book and checked.
func figPositions(c config) ([]Figure, error) {
	rows := make([]any, 100)
	for i := range rows {
		rows[i] = jsonv.ObjectOf("symbol", fmt.Sprintf("S%03d", i), "market_value", jsonv.Number("12.5"))
	}
	m, err := live.CapsFromJSON(mustObject(`{"hard_caps": {"account_funding_usd": 100000, "max_order_notional_usd": 5000,
 "max_total_exposure_usd": 100000, "max_leverage": 1, "allowed_instruments": ["equity", "etf"], "max_trades_per_day": 20},
 "universe": {"asset_classes": ["us_equity", "us_etf"], "min_market_cap_usd": null, "min_avg_daily_volume_usd": null, "exclude_symbols": []}}`))
	if err != nil {
		return nil, err
	}
	n := money.MustParse("100")
	in := live.OrderIntent{Symbol: "AAPL", Side: live.Buy, InstrumentType: live.Equity, NotionalUSD: &n}
	ctx := context.Background()
	var bad error
	us := perCall(c.size(5_000, 50_000), func(int) {
		if b := live.CheckMandate(ctx, live.CheckRequest{Mandate: m, Intent: in, Book: live.ParsePositions(rows)}); b != nil && bad == nil {
			bad = errors.New(b.Message())
		}
	})
	return []Figure{{Name: "position rows parsed + checked, 100 rows", Value: us, Unit: "µs"}}, bad
}

func mustObject(s string) *jsonv.Object {
	v, err := jsonv.ParseString(s, jsonv.Options{})
	if err != nil {
		panic(err)
	}
	return v.(*jsonv.Object)
}

// figLineParse: one batch line parsed (ordered JSON, number text kept).
func figLineParse(c config) ([]Figure, error) {
	lines, err := batchLines(1000)
	if err != nil {
		return nil, err
	}
	var bad error
	us := perCall(c.size(20_000, 200_000), func(i int) {
		if _, err := jsonv.ParseString(lines[i%len(lines)], jsonv.Options{NonFinite: true}); err != nil && bad == nil {
			bad = err
		}
	})
	return []Figure{{Name: "one JSONL line parsed", Value: us, Unit: "µs"}}, bad
}
