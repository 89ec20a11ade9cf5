package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"cockpit/internal/benchcorpus"
	"cockpit/live/jsonv"
)

// sameAsStrict fails t unless the fast path's verdict for line (when it takes the line) is
// the strict path's, byte for byte.
func sameAsStrict(t *testing.T, c *batchCache, line string, n int) bool {
	t.Helper()
	fast, ok := fastBatchLine(c, line, n)
	if !ok {
		return false
	}
	want := string(batchLine(line, n).AppendJSON(nil))
	if got := string(fast.AppendJSON(nil)); got != want {
		t.Fatalf("line %q:\nfast   %s\nstrict %s", line, got, want)
	}
	return true
}

// fastMutations are edits that take a line out of the plain subset, or into odd corners of it.
var fastMutations = []func(string) string{
	func(s string) string { return strings.Replace(s, `100.0`, `NaN`, 1) },
	func(s string) string { return strings.Replace(s, `100.0`, `-Infinity`, 1) },
	func(s string) string { return strings.Replace(s, `100.0`, `{"$float": "inf"}`, 1) },
	func(s string) string { return strings.Replace(s, `"equity"`, `"equ\u0069ty"`, 1) },
	func(s string) string { return strings.Replace(s, `"AAPL"`, `"AAPLé"`, 1) },
	func(s string) string { return strings.Replace(s, `"side"`, `"side": "sell", "side"`, 1) },
	func(s string) string { return strings.Replace(s, `{"id"`, `{"mandate": 1, "id"`, 1) },
	func(s string) string { return strings.Replace(s, `"daily_count": 0`, `"daily_count": 1e400`, 1) },
	func(s string) string {
		return strings.Replace(s, `"daily_count": 0`, `"daily_count": 123456789012345678901234567890123456789012345`, 1)
	},
	func(s string) string { return strings.Replace(s, `"daily_count": 0`, `"daily_count": 2.0`, 1) },
	// loss limits (issue 29): the mandate's controls and the line's equity object
	func(s string) string {
		return strings.Replace(strings.Replace(s, `"hard_caps": {`, `"controls": {"max_daily_loss_usd": 500, "max_drawdown_pct": 2}, "hard_caps": {`, 1),
			`"daily_count": 0`, `"daily_count": 0, "equity": {"current": 99400.5, "day_start": 100000}`, 1)
	},
	func(s string) string {
		return strings.Replace(s, `"hard_caps": {`, `"controls": {"max_daily_loss_usd": 500}, "hard_caps": {`, 1)
	},
	func(s string) string { return strings.Replace(s, `"daily_count": 0`, `"daily_count": "0"`, 1) },
	func(s string) string { return strings.Replace(s, `, "expected"`, `,, "expected"`, 1) },
	func(s string) string { return strings.Replace(s, `"mandate": {`, `"mandate": [{`, 1) },
	func(s string) string { return strings.Replace(s, `"mandate"`, `"mandates"`, 1) },
	func(s string) string { return strings.Replace(s, `"id": "`, `"id": 7, "x": "`, 1) },
	func(s string) string {
		return strings.Replace(s, `"hard_caps": {`, `"hard_caps": {"max_leverage": 2.0, `, 1)
	},
	func(s string) string { return strings.Replace(s, `"max_leverage": 1.0`, `"max_leverage": -1`, 1) },
	func(s string) string {
		return strings.Replace(s, `"expected": null`, `"expected": [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]`, 1)
	},
	func(s string) string { return s + " x" },
	func(s string) string { return "\t" + s + " \r" },
	func(s string) string { return s[:len(s)/2] },
	func(s string) string { return strings.Replace(s, ": ", ":", -1) },
	func(s string) string { return strings.Replace(s, `"id"`, `"ID"`, 1) },
	// the intent, which the fast path reads from its members' texts
	func(s string) string { return strings.Replace(s, `"intent": {`, `"intent": {"$float": "nan", `, 1) },
	func(s string) string { return replaceObject(s, `"intent": `, `{"$float": "inf"}`) },
	func(s string) string { return replaceObject(s, `"intent": `, `[1]`) },
	func(s string) string { return replaceObject(s, `"intent": `, `{}`) },
	func(s string) string { return strings.Replace(s, `"symbol": "AAPL"`, `"symbol": ["AAPL"]`, 1) },
	func(s string) string { return strings.Replace(s, `"symbol": "AAPL"`, `"symbol": 7`, 1) },
	func(s string) string { return strings.Replace(s, `"side": "buy"`, `"side": " BUY "`, 1) },
	func(s string) string { return strings.Replace(s, `"side": "buy"`, `"side": null`, 1) },
	func(s string) string { return strings.Replace(s, `"quantity": null`, `"quantity": "3"`, 1) },
	func(s string) string {
		return strings.Replace(s, `"quantity": null`, `"quantity": {"$float": "-inf"}`, 1)
	},
	func(s string) string {
		return strings.Replace(s, `"quantity": null`, `"limit_price": " 1.5 ", "quantity": true`, 1)
	},
	func(s string) string {
		return strings.Replace(s, `"asset_class": null`, `"asset_class": "us_bonds"`, 1)
	},
	func(s string) string {
		return strings.Replace(s, `"instrument_type": "equity"`, `"instrument_type": "Equity", "x": {"y": [1]}`, 1)
	},
	func(s string) string {
		return strings.Replace(s, `"notional_usd": `, `"notional_usd": "1_000", "n": `, 1)
	},
	func(s string) string { return strings.Replace(s, `, "asset_class": null}`, `}`, 1) },
}

// replaceObject replaces the object after key (which must not hold another object) with v.
func replaceObject(s, key, v string) string {
	i := strings.Index(s, key)
	if i < 0 {
		return s
	}
	start := i + len(key)
	end := strings.IndexByte(s[start:], '}')
	if end < 0 {
		return s
	}
	return s[:start] + v + s[start+end+1:]
}

// TestFastBatchLineMatchesStrict: on the batch corpus, the same lines edited, and the same
// lines again with the mandate cache warm, the fast path gives the strict path's verdicts.
func TestFastBatchLineMatchesStrict(t *testing.T) {
	lines := benchcorpus.BatchLines(t, 2000)
	c := newBatchCache()
	taken := 0
	for round := range 2 { // the second round hits the cache for every mandate
		for i, line := range lines {
			if sameAsStrict(t, c, line, i+1) {
				taken++
			} else if round == 0 && i < 300 {
				t.Logf("not plain: %.80s", line)
			}
			for _, m := range fastMutations {
				sameAsStrict(t, c, m(line), i+1)
			}
		}
	}
	if taken < 2*len(lines) {
		t.Errorf("fast path took %d of %d corpus lines, want all (the corpus is plain JSON)", taken, 2*len(lines))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 { // random one-byte edits
		b := []byte(lines[rng.IntN(len(lines))])
		const alphabet = " {}[]\",:0123456789.eE-+tfnulNaI\\x"
		b[rng.IntN(len(b))] = alphabet[rng.IntN(len(alphabet))]
		sameAsStrict(t, c, string(b), i)
	}
}

// TestFastBatchCacheIsBounded: distinct mandate texts past the limit empty the cache instead
// of growing it.
func TestFastBatchCacheIsBounded(t *testing.T) {
	line := benchcorpus.BatchLines(t, 1)[0]
	c := newBatchCache()
	for i := range 3 * fastCacheLimit {
		l := strings.Replace(line, `"max_trades_per_day": 5`, `"max_trades_per_day": `+strings.Repeat("1", 1+i%9)+strings.Repeat(" ", i/9), 1)
		sameAsStrict(t, c, l, i)
		if len(c.mandates) > fastCacheLimit {
			t.Fatalf("cache holds %d mandates, want ≤ %d", len(c.mandates), fastCacheLimit)
		}
	}
}

// FuzzFastBatchLineMatchesStrict: any line the fast path takes gets the strict path's
// verdict, cold and with the cache warm.
func FuzzFastBatchLineMatchesStrict(f *testing.F) {
	for _, s := range benchcorpus.BatchLines(f, 40) {
		f.Add(s)
	}
	f.Add(`{"id": "a", "mandate": {}, "intent": {}}`)
	f.Add(`{"mandate": {"hard_caps": {}, "universe": {}}, "intent": {"symbol": "A"}}`)
	f.Fuzz(func(t *testing.T, line string) {
		c := newBatchCache()
		sameAsStrict(t, c, line, 3)
		sameAsStrict(t, c, line, 4)
	})
}

// TestFastBatchCacheReuseIsPure: what the cache keeps is never written by an evaluation. Every
// corpus line (and its edits) is evaluated three times from a warm cache with the strict
// verdict each time, and the cached values and books afterwards print as a fresh parse of
// their text does.
func TestFastBatchCacheReuseIsPure(t *testing.T) {
	lines := benchcorpus.BatchLines(t, 500)
	c := newBatchCache()
	for range 3 {
		for i, line := range lines {
			sameAsStrict(t, c, line, i+1)
			for _, m := range fastMutations {
				sameAsStrict(t, c, m(line), i+1)
			}
		}
	}
	if len(c.positions) == 0 || len(c.universe) == 0 {
		t.Fatalf("cache holds %d positions and %d universe_data texts, want some", len(c.positions), len(c.universe))
	}
	for text, p := range c.positions {
		fresh, ok := parsePositions(strings.Clone(text))
		if !ok {
			t.Fatalf("cached positions %s do not parse", text)
		}
		if got, want := printed(p.value), printed(fresh.value); got != want {
			t.Fatalf("positions %s: cached value %s, fresh %s", text, got, want)
		}
		if got, want := fmt.Sprint(p.book.Exposures, p.book.Err, p.book.Gross()), fmt.Sprint(fresh.book.Exposures, fresh.book.Err, fresh.book.Gross()); got != want {
			t.Fatalf("positions %s: cached book %s, fresh %s", text, got, want)
		}
	}
	for text, v := range c.universe {
		fresh, _ := plainDecoded(strings.Clone(text))
		if printed(v) != printed(fresh) {
			t.Fatalf("universe_data %s: cached %s, fresh %s", text, printed(v), printed(fresh))
		}
	}
}

// printed is v as JSON, NaN and Infinity included.
func printed(v any) string {
	b, err := jsonv.Marshal(v, jsonv.Python)
	if err != nil {
		return fmt.Sprintf("unprintable %#v: %v", v, err)
	}
	return string(b)
}
